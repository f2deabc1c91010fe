package workflow_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow"
)

// openPR takes the harness's issue to an open pull request.
func (h *harness) openPR() ghtest.PullRequest {
	h.t.Helper()
	require.NoError(h.t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)
	require.NoError(h.t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/implement" }))
	h.waitRun("done", func(r *store.Run) bool { return r.State == store.StateDone })
	return h.gh.PullRequests(owner, name)[0]
}

// prReplies returns the bot's conversation comments on pr that reply to a
// conversation comment or review, by marker kind.
func (h *harness) prReplies(pr int) map[string]string {
	out := map[string]string{}
	for _, c := range h.gh.Comments(owner, name, pr) {
		if m, ok := ghtext.ParseMarker(c.Body); ok && c.User == h.gh.BotLogin() && strings.HasPrefix(m.Kind, "reply-") {
			out[m.Kind] = c.Body
		}
	}
	return out
}

// A conversation comment on the bot's PR and a submitted review that
// mention the bot are revisions of the whole PR: the coder gets the PR's
// changed files and the text, each becomes one commit crediting its author,
// and the reply goes in the conversation. Repeats change nothing; a
// conversation comment without a mention asks nothing.
func TestConversationCommentAndReviewRevise(t *testing.T) {
	t.Parallel()
	ag := &agents{}
	h := newHarness(t, ag)
	h.gh.SetPermission(owner, name, "bob", "write")
	pr := h.openPR()
	before := h.branchCommits(pr.Head)

	require.ErrorIs(t, h.event(workflow.Mention, func(ev *workflow.Event) {
		ev.Number, ev.CommentID, ev.Body = pr.Number, 7001, "thanks, looks good"
	}), workflow.ErrIgnored)
	comment := h.gh.AddComment(owner, name, pr.Number, "alice", "@issuesmith please greet politely")
	for range 2 { // a redelivered or edited-again event is the same request
		require.NoError(t, h.event(workflow.Mention, func(ev *workflow.Event) {
			ev.Number, ev.CommentID, ev.Body = pr.Number, comment, "@issuesmith please greet politely"
		}))
	}
	require.NoError(t, h.event(workflow.ReviewSubmitted, func(ev *workflow.Event) {
		ev.Number, ev.CommentID, ev.Sender, ev.Body = pr.Number, 9001, "bob", "Changes requested: @issuesmith add a farewell too"
	}))
	h.eventually(func() bool { return len(h.prReplies(pr.Number)) == 2 }, "condition never held")

	replies := h.prReplies(pr.Number)
	require.Contains(t, replies["reply-comment-"+itoa(comment)], "> @alice: @issuesmith please greet politely")
	require.Contains(t, replies["reply-comment-"+itoa(comment)], "Done in ")
	require.Contains(t, replies["reply-review-9001"], "> @bob: Changes requested")
	require.Equal(t, before+2, h.branchCommits(pr.Head), "one commit per request, the repeat made none")
	got := h.branchFile(pr.Head, "greet_test.go")
	alice, bob := strings.Index(got, "by alice"), strings.Index(got, "by bob")
	require.True(t, alice >= 0 && alice < bob, "handled in order:\n%s", got)
	require.Contains(t, h.branchFile(pr.Head, "greet.go"), "// review of the PR by bob: Changes requested")
	require.Contains(t, h.branchMessage(pr.Head), "Co-authored-by: bob <bob@users.noreply.github.com>")

	ag.mu.Lock()
	defer ag.mu.Unlock()
	require.Len(t, ag.reviews, 2)
	for _, r := range ag.reviews {
		require.Empty(t, r.Path)
		require.Equal(t, []string{"greet.go", "greet_test.go"}, r.Files, "the PR's changed files")
	}
}

// The code stage's commit credits the person who asked for the run.
func TestCodeCommitCreditsTheRequester(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	pr := h.openPR()
	require.Contains(t, h.branchMessage(pr.Head), "Co-authored-by: alice <alice@users.noreply.github.com>")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
