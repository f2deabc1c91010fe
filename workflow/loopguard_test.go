package workflow_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow"
)

// guarded restarts h's engine with a loop guard of max per hour.
func (h *harness) guarded(max int) {
	h.t.Helper()
	h.stop(10 * time.Second)
	h.limits = &config.Limits{LoopMaxPerHour: max}
	h.start()
}

// TestLoopGuardRuns: an issue gets at most the ceiling of runs an hour,
// whatever starts them (the label, /implement, /retry): the next is
// refused as ignored and starts nothing.
func TestLoopGuardRuns(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	h.guarded(2)
	require.NoError(t, h.event(workflow.Labeled))
	first := h.waitRun("approval", waitingForApproval)
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/implement" }))
	h.waitRun("done", func(r *store.Run) bool { return r.State == store.StateDone })

	err := h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/retry" })
	var le *workflow.LoopError
	require.ErrorAs(t, err, &le)
	require.ErrorIs(t, err, workflow.ErrIgnored)
	require.Contains(t, err.Error(), "this issue had 2 runs in the last hour, the most ISSUESMITH_LOOP_MAX_PER_HOUR allows")
	h.waitJobsDone()
	last, err := h.st.LatestRun(t.Context(), store.IssueKey{Owner: owner, Repo: name, Issue: h.issue})
	require.NoError(t, err)
	require.Equal(t, first.ID, last.ID, "no new run")
	require.Equal(t, store.StateDone, last.State)

	// The label again, through its job: refused too, and said once on the
	// issue (a second refusal in the hour is silent).
	for range 2 {
		h.gh.SetLabels(owner, name, h.issue, "issuesmith")
		require.NoError(t, h.event(workflow.Labeled))
		h.waitJobsDone()
	}
	said := h.botComments()["loop-guard"]
	require.Len(t, said, 1)
	require.Contains(t, said[0].Body, "This issue had 2 runs in the last hour")

	// The label path counts too: another issue's label is its own.
	other := h.gh.AddIssue(owner, name, ghtest.Issue{Title: "Other", Body: "x", User: "alice", Labels: []string{"issuesmith"}})
	require.NoError(t, h.event(workflow.Labeled, func(ev *workflow.Event) { ev.Number = other }))
	h.eventually(func() bool {
		r, err := h.st.LatestRun(t.Context(), store.IssueKey{Owner: owner, Repo: name, Issue: other})
		return err == nil && r.State == store.StateWaiting
	}, "condition never held")
}

// TestLoopGuardReviseRounds: two bots ping-ponging review mentions on
// the bot's PR get the ceiling of revise rounds an hour and no more.
func TestLoopGuardReviseRounds(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	h.guarded(3)
	pr := h.openPR() // two runs' worth: the label and /implement
	var refused int
	for i := range 5 {
		body := "@issuesmith again, please"
		id := h.gh.AddComment(owner, name, pr.Number, "alice", body)
		kind := workflow.Mention
		if i%2 == 1 {
			kind = workflow.ReviewComment
			id = h.gh.AddReviewComment(owner, name, pr.Number, ghtest.ReviewComment{User: "alice", Path: "greet.go", Line: 1, Body: body})
		}
		err := h.event(kind, func(ev *workflow.Event) { ev.Number, ev.IsPR, ev.CommentID, ev.Body = pr.Number, true, id, body })
		if err != nil {
			require.ErrorIs(t, err, workflow.ErrIgnored)
			require.Contains(t, err.Error(), "revise rounds in the last hour")
			refused++
		}
	}
	require.Equal(t, 2, refused, "3 of 5 served")
	jobs, err := h.eng.Queue().Jobs(t.Context(), nil)
	require.NoError(t, err)
	revises := 0
	for _, j := range jobs {
		var a workflow.StageArgs
		if j.Kind == (workflow.StageArgs{}).Kind() && json.Unmarshal(j.EncodedArgs, &a) == nil && a.Stage == workflow.StageRevise {
			revises++
		}
	}
	require.Equal(t, 3, revises, "three revise rounds queued, none for the refused requests")
}

// TestLoopGuardCIRounds: a flapping CI (a new failure on every head) gets
// the ceiling of fix rounds an hour, counting a /retry's; the round past
// it is refused in the CI comment and changes nothing.
func TestLoopGuardCIRounds(t *testing.T) {
	t.Parallel()
	h, _ := ciHarness(t, "ci:\n  fix_rounds: 5\n")
	h.guarded(2)
	pr := h.openPR()
	fail := func(test string) string {
		head := h.head(pr.Head)
		h.gh.AddCheckRun(owner, name, ghtest.CheckRun{HeadSHA: head, Name: "test", Conclusion: "failure",
			Log: strings.ReplaceAll(failingLog, "TestHello", test)})
		return head
	}
	h.ciFinished(pr.Number, fail("TestOne"))
	h.waitCI(pr.Number, "pushed")
	h.waitJobsDone()
	retry := h.gh.AddComment(owner, name, pr.Number, "alice", "/retry")
	fail("TestTwo")
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) {
		ev.Number, ev.IsPR, ev.CommentID, ev.Body, ev.Command = pr.Number, true, retry, "/retry", workflow.CmdRetry
	}))
	h.waitJobsDone()
	require.Contains(t, h.ciComment(pr.Number), "**Round 2**")
	commits := h.branchCommits(pr.Head)
	h.ciFinished(pr.Number, fail("TestThree"))
	body := h.waitCI(pr.Number, "the loop guard")
	require.Contains(t, body, "2 CI rounds in the last hour")
	h.waitJobsDone()
	require.Equal(t, commits, h.branchCommits(pr.Head), "no round past the ceiling")
}
