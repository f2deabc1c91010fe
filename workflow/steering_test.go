package workflow_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
	"github.com/issuesmith/issuesmith/workflow"
)

func TestInvalidRepoConfigSaysWhichKeyAndNothingRuns(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{exploreErr: errors.New("the explorer must not run")})
	h.gh.SetFile(owner, name, "main", workflow.RepoConfigPath, []byte("version: 1\nlabel: issuesmith\nauto_implment: true\n"))
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitRun("failed", func(r *store.Run) bool { return r.State == store.StateFailed })
	require.Contains(t, run.Reason, "auto_implment")
	require.Contains(t, h.botComments()["progress"][0].Body, "auto_implment")
	require.Empty(t, h.botComments()["spec"])
}

func TestRepoConfigAutoImplementReadyPRAndBlockedPath(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	h.gh.SetFile(owner, name, "main", workflow.RepoConfigPath,
		[]byte("version: 1\nauto_implement: true\ndraft: false\nblocked_paths: [\"*_test.go\"]\n"))
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitRun("ended", func(r *store.Run) bool { return !r.Open() })
	// The blocked test file makes the change incomplete: the branch is
	// pushed with an explanation and no PR is opened.
	require.Equal(t, store.StateFailed, run.State, run.Reason)
	require.Contains(t, run.Reason, "pushed branch `issuesmith/issue-1`")
	require.Contains(t, run.Reason, "`greet_test.go`: blocked")
	require.Empty(t, h.gh.PullRequests(owner, name))
	require.Equal(t, "// step one for greet.go\n// step two for greet.go\n// step three for greet.go", h.branchFile("issuesmith/issue-1", "greet.go"))
	require.Contains(t, h.botComments()["progress"][0].Body, "holds what was done")
}

func TestRetryAfterFailureCarriesOn(t *testing.T) {
	t.Parallel()
	ag := &agents{exploreErr: errors.New("model endpoint answered 500")}
	h := newHarness(t, ag)
	require.NoError(t, h.event(workflow.Labeled))
	failed := h.waitRun("failed", func(r *store.Run) bool { return r.State == store.StateFailed })
	h.waitProgress("issuesmith: stopped")

	ag.mu.Lock()
	ag.exploreErr = nil
	ag.mu.Unlock()
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/retry" }))
	run := h.waitRun("approval", waitingForApproval)
	require.NotEqual(t, failed.ID, run.ID, "a new run")
	h.waitProgress("waiting for you")
	c := h.botComments()
	require.Len(t, c["progress"], 1, "the new run edits the same progress comment")
	require.Len(t, c["spec"], 1)
	require.Len(t, c["plan"], 1)

	// /stop cancels the waiting run; /implement afterwards starts a new
	// run straight at coding, from the plan comment as it stands.
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/stop" }))
	h.waitProgress("issuesmith: cancelled")
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/implement" }))
	h.waitRun("done", func(r *store.Run) bool { return r.State == store.StateDone })
	h.waitProgress("issuesmith: done")
	require.Len(t, h.gh.PullRequests(owner, name), 1)
	require.Equal(t, 1, h.agents.implementCount())
}

func TestOldDeliveriesArePrunedPeriodically(t *testing.T) {
	t.Parallel()
	st := storetest.SQLite(t)
	_, err := st.DB().ExecContext(t.Context(), `INSERT INTO deliveries (id, event, received_at) VALUES ('old', 'issues', ?)`,
		time.Now().Add(-workflow.DeliveryRetention-time.Hour).Unix())
	require.NoError(t, err)
	fresh, err := st.RecordDelivery(t.Context(), "new", "issues")
	require.NoError(t, err)
	require.True(t, fresh)
	h := newHarnessOn(t, &agents{}, st) // the engine prunes on start, then every few hours
	h.eventually(func() bool {
		var n int
		err := st.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM deliveries WHERE id = 'old'`).Scan(&n)
		return err == nil && n == 0
	}, "condition never held")
	fresh, err = st.RecordDelivery(t.Context(), "new", "issues")
	require.NoError(t, err)
	require.False(t, fresh, "a recent delivery is kept")
}

func TestPushRefreshesSummariesOfTheDefaultBranch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	h.gh.SetFile(owner, name, "main", workflow.RepoConfigPath, []byte("version: 1\nroles:\n  summarizer:\n    model: small-summarizer\n"))
	require.NoError(t, h.event(workflow.Pushed))
	h.eventually(func() bool {
		h.agents.mu.Lock()
		defer h.agents.mu.Unlock()
		return slices.Contains(h.agents.refreshed, "greet.go")
	}, "the refresh saw a checkout of main")
	h.agents.mu.Lock()
	defer h.agents.mu.Unlock()
	require.NotNil(t, h.agents.refreshCfg, "the refresh got the repository's settings")
	require.Equal(t, "small-summarizer", h.agents.refreshCfg.LLMRoles()[llm.RoleSummarizer].Model)
}

// An invalid .github/issuesmith.yml refreshes nothing: like every stage,
// the summaries wait until the file is fixed.
func TestPushWithAnInvalidConfigRefreshesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	h.gh.SetFile(owner, name, "main", workflow.RepoConfigPath, []byte("version: 1\nroles:\n  summariser: {}\n"))
	require.NoError(t, h.event(workflow.Pushed))
	h.eventually(func() bool {
		var n int
		err := h.st.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM river_job WHERE kind = 'issuesmith_refresh' AND state = 'completed'`).Scan(&n)
		return err == nil && n == 1
	}, "the refresh job ends without retries")
	h.agents.mu.Lock()
	defer h.agents.mu.Unlock()
	require.Empty(t, h.agents.refreshed)
}

func TestStopDuringCodingStopsTheCoderAndOpensNoPR(t *testing.T) {
	t.Parallel()
	hit := make(chan struct{})
	h := newHarness(t, &agents{implementHit: hit, block: true})
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/implement" }))
	<-hit // the coder is working (and would work until its context ends)
	// Heartbeats keep the working job's issue lease long past its TTL: no
	// other job (or replica) can take the issue meanwhile.
	time.Sleep(leaseTTL * 3 / 2)
	ok, err := h.st.AcquireLease(t.Context(), store.IssueKey{Owner: owner, Repo: name, Issue: h.issue}, "intruder", time.Second)
	require.NoError(t, err)
	require.False(t, ok, "the live stage's lease expired")
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/stop" }))
	h.waitProgress("issuesmith: cancelled")
	h.eventually(func() bool {
		jobs, err := h.eng.Queue().Jobs(t.Context(), nil)
		if err != nil {
			return false
		}
		for _, j := range jobs {
			if j.Kind == "issuesmith_stage" && j.State != "completed" {
				return false
			}
		}
		return true
	}, "the code job ended (not left to retry)")
	require.Empty(t, h.gh.PullRequests(owner, name))
	require.Equal(t, 1, h.agents.implementCount())
	require.Equal(t, 1, h.branchCommits("main"))
	out, _ := runGit(t.Context(), h.bare, "branch", "--list", "issuesmith/*")
	require.Empty(t, out)
}

func TestEditedSpecIsUsedByPlan(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)
	h.waitProgress("waiting for you")
	spec := h.botComments()["spec"][0]
	require.Contains(t, spec.Body, "- [x] **add** `greet_test.go`")
	h.gh.EditComment(spec.ID, strings.Replace(spec.Body, "- [x] **add** `greet_test.go`", "- [ ] **add** `greet_test.go`", 1))

	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/plan" }))
	h.eventually(func() bool {
		return !strings.Contains(h.botComments()["plan"][0].Body, "greet_test.go")
	}, "the plan made from the edited spec drops the unticked file")
	h.waitRun("approval again", waitingForApproval)
	require.Len(t, h.botComments()["plan"], 1, "the plan comment is edited, not duplicated")
	require.Contains(t, h.botComments()["plan"][0].Body, "`greet.go`")
}

func TestReviewCommentsAreHandledOneAtATimeInOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/implement" }))
	h.waitRun("done", func(r *store.Run) bool { return r.State == store.StateDone })
	pr := h.gh.PullRequests(owner, name)[0]
	before := h.branchCommits(pr.Head)
	for i, body := range []string{"@issuesmith first", "@issuesmith second", "@issuesmith third"} {
		id := h.gh.AddReviewComment(owner, name, pr.Number, ghtest.ReviewComment{User: "alice", Path: "greet.go", Line: i + 1, Body: body})
		require.NoError(t, h.event(workflow.ReviewComment, func(ev *workflow.Event) { ev.Number, ev.CommentID, ev.Body = pr.Number, id, body }))
	}
	h.eventually(func() bool {
		replies := 0
		for _, c := range h.gh.ReviewComments(owner, name, pr.Number) {
			if c.User == h.gh.BotLogin() {
				replies++
			}
		}
		return replies == 3
	}, "condition never held")
	require.Equal(t, before+3, h.branchCommits(pr.Head), "one commit per comment, none lost to a concurrent push")
	got := h.branchFile(pr.Head, "greet.go")
	first, second, third := strings.Index(got, "first"), strings.Index(got, "second"), strings.Index(got, "third")
	require.True(t, first >= 0 && first < second && second < third, "handled in order:\n%s", got)
}

func TestRepositoryTriggerLabel(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	h.gh.SetFile(owner, name, "main", workflow.RepoConfigPath, []byte("version: 1\nlabel: bot-please\n"))
	h.gh.SetLabels(owner, name, h.issue, "issuesmith", "bot-please")

	// The server's default label is not this repository's trigger.
	require.NoError(t, h.event(workflow.Labeled))
	h.eventually(func() bool {
		jobs, err := h.eng.Queue().Jobs(t.Context(), nil)
		if err != nil {
			return false
		}
		for _, j := range jobs {
			if j.Kind == (workflow.LabelArgs{}).Kind() && j.State == "completed" {
				return true
			}
		}
		return false
	}, "condition never held")
	_, err := h.st.LatestRun(t.Context(), store.IssueKey{Owner: owner, Repo: name, Issue: h.issue})
	require.ErrorIs(t, err, store.ErrNotFound, "no run for a label that is not the trigger")

	require.NoError(t, h.event(workflow.Labeled, func(ev *workflow.Event) { ev.Label = "bot-please" }))
	run := h.waitRun("approval", waitingForApproval)
	require.Equal(t, "bot-please", run.TriggerLabel)
	require.ErrorIs(t, h.event(workflow.Unlabeled), workflow.ErrIgnored, "removing another label cancels nothing")
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/implement" }))
	h.waitRun("done", func(r *store.Run) bool { return r.State == store.StateDone })
	h.waitProgress("issuesmith: done")
	is, _ := h.gh.Issue(owner, name, h.issue)
	require.Equal(t, []string{"issuesmith"}, is.Labels, "the trigger label is reset, the other stays")
}

func TestUnreadablePlanEditWaitsForAFixAndLosesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)
	h.waitProgress("waiting for you")
	plan := h.botComments()["plan"][0]
	broken := strings.Replace(editPlan(t, plan.Body), "### 1. modify `greet.go`", "### 1. frobnicate `greet.go`", 1)
	require.NotEqual(t, editPlan(t, plan.Body), broken)
	h.gh.EditComment(plan.ID, broken)
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/implement" }))
	h.waitProgress("frobnicate")
	run := h.waitRun("waiting", func(r *store.Run) bool { return r.State == store.StateWaiting })
	require.Equal(t, workflow.StageCode, run.Stage)
	require.Equal(t, 0, h.agents.implementCount(), "nothing ran on an unreadable plan")
	again, _ := h.gh.Comment(plan.ID)
	require.Equal(t, broken, again.Body, "the person's text is kept as written")

	fixed := strings.Replace(broken, "frobnicate", "modify", 1)
	h.gh.EditComment(plan.ID, fixed)
	require.NoError(t, h.event(workflow.CommentEdited, func(ev *workflow.Event) { ev.CommentID, ev.Body = plan.ID, fixed }))
	h.waitRun("done", func(r *store.Run) bool { return r.State == store.StateDone })
	require.Len(t, h.gh.PullRequests(owner, name), 1)
}
