package workflow_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow"
)

// prClosed sends the event of the bot's pull request pr closed by sender.
func (h *harness) prClosed(pr int, merged bool, sender string) error {
	return h.event(workflow.PRClosed, func(ev *workflow.Event) { ev.Number, ev.Merged, ev.Sender = pr, merged, sender })
}

// A merged pull request: the run is done and its progress comment says
// who merged which pull request.
func TestMergedPRShowsInTheProgressComment(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	pr := h.openPR()
	// Closed, reopened, then merged: the merge is what counts.
	require.NoError(t, h.prClosed(pr.Number, false, "bob"))
	h.waitProgress("was closed without merging by")
	h.gh.ClosePR(owner, name, pr.Number, true)
	require.NoError(t, h.prClosed(pr.Number, true, "bob"))
	h.waitProgress(fmt.Sprintf("pull request #%d was merged by bob", pr.Number))
	run := h.waitRun("done", func(r *store.Run) bool { return r.State == store.StateDone })
	require.Equal(t, pr.Number, run.PRNumber)
	require.Contains(t, h.botComments()["progress"][0].Body, "### issuesmith: done")
	// Another pull request of the repository is not the bot's.
	require.ErrorIs(t, h.prClosed(pr.Number+100, true, "bob"), workflow.ErrIgnored)
}

// A pull request closed without merging ends the run: the progress comment
// says so and how to start again, a review mention changes nothing, and
// /retry starts a new run that opens a new pull request.
func TestPRClosedWithoutMergeEndsTheRun(t *testing.T) {
	t.Parallel()
	ag := &agents{}
	h := newHarness(t, ag)
	pr := h.openPR()
	h.gh.ClosePR(owner, name, pr.Number, false)
	require.NoError(t, h.prClosed(pr.Number, false, "bob"))
	h.waitProgress("was closed without merging by")
	closed := h.waitRun("cancelled", func(r *store.Run) bool { return r.State == store.StateCancelled })
	require.Contains(t, h.botComments()["progress"][0].Body, "`/retry`")
	require.ErrorIs(t, h.prClosed(pr.Number, false, "bob"), workflow.ErrIgnored, "a redelivery changes nothing")

	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/retry" }))
	again := h.waitRun("a new run done", func(r *store.Run) bool { return r.ID != closed.ID && r.State == store.StateDone })
	require.NotZero(t, again.PRNumber)
}

// An issue edited while its run waits for answers to the spec's open
// questions is explored again; other edits are ignored.
func TestIssueEditAnswersOpenQuestions(t *testing.T) {
	t.Parallel()
	ag := &agents{questions: []string{"Which name should Hello use?"}}
	h := newHarness(t, ag)
	require.ErrorIs(t, h.event(workflow.IssueEdited), workflow.ErrIgnored, "no run yet")
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("questions", func(r *store.Run) bool {
		return r.State == store.StateWaiting && r.Stage == workflow.StageExplore
	})
	ag.mu.Lock()
	ag.questions = nil // the edit answered them
	ag.mu.Unlock()
	require.NoError(t, h.event(workflow.IssueEdited))
	h.waitRun("approval", waitingForApproval)
	require.ErrorIs(t, h.event(workflow.IssueEdited), workflow.ErrIgnored, "an edit while the plan waits changes nothing")
	ag.mu.Lock()
	defer ag.mu.Unlock()
	require.Equal(t, 2, ag.explores)
}

// A mention on the closed pull request changes nothing and gets a reply
// saying the pull request is closed.
func TestMentionOnAClosedPRGetsAReply(t *testing.T) {
	t.Parallel()
	ag := &agents{}
	h := newHarness(t, ag)
	pr := h.openPR()
	h.gh.ClosePR(owner, name, pr.Number, false)
	require.NoError(t, h.prClosed(pr.Number, false, "bob"))
	h.waitRun("cancelled", func(r *store.Run) bool { return r.State == store.StateCancelled })
	before := h.branchCommits(pr.Head)
	comment := h.gh.AddComment(owner, name, pr.Number, "alice", "@issuesmith one more tweak please")
	require.NoError(t, h.event(workflow.Mention, func(ev *workflow.Event) {
		ev.Number, ev.CommentID, ev.Body = pr.Number, comment, "@issuesmith one more tweak please"
	}))
	h.eventually(func() bool { return len(h.prReplies(pr.Number)) == 1 }, "no reply")
	h.waitJobsDone()
	require.Contains(t, h.prReplies(pr.Number)["reply-comment-"+itoa(comment)], "is closed")
	require.Equal(t, before, h.branchCommits(pr.Head), "nothing pushed")
	ag.mu.Lock()
	defer ag.mu.Unlock()
	require.Empty(t, ag.reviews, "the coder was not asked")
}
