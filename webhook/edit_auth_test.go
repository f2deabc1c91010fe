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
// issue's: the event is recorded with the editor as sender and CheckWrite
// set, for the intake job to ask GitHub.
func TestBotCommentEditNeedsTheEditorsWrite(t *testing.T) {
	t.Parallel()
	r := newRig(t, 0)
	edit := func(sender string) map[string]any {
		m := payload(t, "issue_comment.edited", r.gh.Installation())
		set(m, "comment.user", r.botUser())
		set(m, "issue.user.login", "alice")
		set(m, "comment.body", "<!-- issuesmith:plan run=1 v=1 -->\n- [x] **Approve and implement**")
		set(m, "sender.login", sender)
		return m
	}
	code, _ := r.send(r.newDelivery("issue_comment", edit("mallory")))
	assert.Equal(t, http.StatusAccepted, code)
	if got := r.disp.got(); assert.Len(t, got, 1) {
		assert.Equal(t, workflow.CommentEdited, got[0].Kind)
		assert.Equal(t, "mallory", got[0].Sender)
		assert.True(t, got[0].CheckWrite)
	}
	assert.Zero(t, r.gh.Calls(permOp))
}
