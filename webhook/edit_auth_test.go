package webhook

import (
	"net/http"
	"testing"

	"github.com/issuesmith/issuesmith/workflow"
	"github.com/stretchr/testify/assert"
)

// TestBotCommentEditNeedsTheEditorsWrite: an edit of the bot's plan (a
// ticked approve box) arrives with the editor as sender; it is the editor's
// permission that counts, not the comment's author (the bot) nor the
// issue's. A read-only editor is denied and nothing is dispatched.
func TestBotCommentEditNeedsTheEditorsWrite(t *testing.T) {
	t.Parallel()
	r := newRig(t, 0)
	r.gh.SetPermission(owner, repo, "mallory", "read")
	r.gh.SetPermission(owner, repo, "alice", "write")
	edit := func(sender string) map[string]any {
		m := payload(t, "issue_comment.edited", r.gh.Installation())
		set(m, "comment.user", r.botUser())
		set(m, "issue.user.login", "alice")
		set(m, "comment.body", "<!-- issuesmith:plan run=1 v=1 -->\n- [x] **Approve and implement**")
		set(m, "sender.login", sender)
		return m
	}
	code, body := r.send(r.newDelivery("issue_comment", edit("mallory")))
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, ResultDenied)
	assert.Empty(t, r.disp.got())

	code, _ = r.send(r.newDelivery("issue_comment", edit("alice")))
	assert.Equal(t, http.StatusAccepted, code)
	if got := r.disp.got(); assert.Len(t, got, 1) {
		assert.Equal(t, workflow.CommentEdited, got[0].Kind)
		assert.Equal(t, "alice", got[0].Sender)
	}
	assert.Equal(t, 2, r.gh.Calls(permOp))
}
