package workflow_test

import (
	"errors"
	"fmt"
	"strconv"
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

func waitingForApproval(r *store.Run) bool {
	return r.State == store.StateWaiting && r.Stage == workflow.StageApproval
}

// editPlan removes step two of greet.go, rewords step one, and ticks the
// approve box, as a person would in the browser.
func editPlan(t *testing.T, body string) string {
	t.Helper()
	require.Contains(t, body, "- step two for greet.go\n")
	body = strings.Replace(body, "- step two for greet.go\n", "", 1)
	body = strings.Replace(body, "step one for greet.go", "accept a name parameter", 1)
	require.Contains(t, body, "- [ ] **Approve and implement**")
	return strings.Replace(body, "- [ ] **Approve and implement**", "- [x] **Approve and implement**", 1)
}

func TestHappyPathEditedPlanToPRAndReview(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitRun("approval", waitingForApproval)
	h.waitProgress("waiting for you")

	c := h.botComments()
	require.Len(t, c["progress"], 1)
	require.Len(t, c["spec"], 1)
	require.Len(t, c["plan"], 1)
	require.Contains(t, c["spec"][0].Body, "Greet people by name")
	require.EqualValues(t, c["plan"][0].ID, run.PlanCommentID)
	require.Contains(t, c["progress"][0].Body, "waiting for you")
	require.Contains(t, c["progress"][0].Body, "1,650 tokens", "explorer and planner usage is shown")
	// The explorer priced its own calls (llm.Response.Cost); the planner
	// reported no cost, so Options.Cost priced its 550 tokens.
	require.InDelta(t, exploreCost+550/1e6, run.Cost, 1e-9)
	is, _ := h.gh.Issue(owner, name, h.issue)
	require.Equal(t, []string{h.gh.BotLogin() + ":eyes"}, is.Reactions)

	// An edit that does not tick the box asks nothing.
	edited := editPlan(t, c["plan"][0].Body)
	require.ErrorIs(t, h.event(workflow.CommentEdited, func(ev *workflow.Event) {
		ev.CommentID, ev.Body = run.PlanCommentID, c["plan"][0].Body
	}), workflow.ErrIgnored)

	h.gh.EditComment(run.PlanCommentID, edited)
	require.NoError(t, h.event(workflow.CommentEdited, func(ev *workflow.Event) { ev.CommentID, ev.Body = run.PlanCommentID, edited }))
	run = h.waitRun("done", func(r *store.Run) bool { return r.State == store.StateDone })
	h.waitProgress("issuesmith: done")

	prs := h.gh.PullRequests(owner, name)
	require.Len(t, prs, 1)
	pr := prs[0]
	require.Equal(t, "issuesmith/issue-1", pr.Head)
	require.Equal(t, "main", pr.Base)
	require.True(t, pr.Draft)
	require.Equal(t, "Greet people by name", pr.Title)
	require.Contains(t, pr.Body, "Fixes #1")
	require.Contains(t, pr.Body, "  - accept a name parameter\n")
	require.Contains(t, pr.Body, "`go build ./...`: passed")
	require.Equal(t, []string{"alice"}, pr.Reviewers)
	require.Equal(t, pr.Number, run.PRNumber)

	// The pushed code follows the edited plan: step reworded, step two gone.
	require.Equal(t, "// accept a name parameter\n// step three for greet.go", h.branchFile("issuesmith/issue-1", "greet.go"))
	require.Equal(t, "// step one for greet_test.go\n// step two for greet_test.go\n// step three for greet_test.go",
		h.branchFile("issuesmith/issue-1", "greet_test.go"))

	is, _ = h.gh.Issue(owner, name, h.issue)
	require.NotContains(t, is.Labels, "issuesmith", "the trigger label is reset")
	c = h.botComments()
	require.Len(t, c["progress"], 1, "one progress comment, edited in place")
	require.Len(t, c["spec"], 1)
	require.Len(t, c["plan"], 1)
	require.Contains(t, c["progress"][0].Body, "issuesmith: done")
	require.Contains(t, c["progress"][0].Body, "#"+strconv.Itoa(pr.Number))

	// A review comment that mentions the bot: a new commit and a reply.
	before := h.branchCommits("issuesmith/issue-1")
	rc := h.gh.AddReviewComment(owner, name, pr.Number, ghtest.ReviewComment{User: "alice", Path: "greet.go", Line: 2, Body: "@issuesmith say hi instead"})
	require.ErrorIs(t, h.event(workflow.ReviewComment, func(ev *workflow.Event) {
		ev.Number, ev.CommentID, ev.Body = pr.Number, rc, "no mention here"
	}), workflow.ErrIgnored)
	require.NoError(t, h.event(workflow.ReviewComment, func(ev *workflow.Event) {
		ev.Number, ev.CommentID, ev.Body = pr.Number, rc, "@issuesmith say hi instead"
	}))
	var reply ghtest.ReviewComment
	h.eventually(func() bool {
		for _, c := range h.gh.ReviewComments(owner, name, pr.Number) {
			if c.InReplyTo == rc {
				reply = c
				return true
			}
		}
		return false
	}, "condition never held")
	require.Equal(t, h.gh.BotLogin(), reply.User)
	require.Contains(t, reply.Body, "Done in ")
	require.Equal(t, before+1, h.branchCommits("issuesmith/issue-1"))
	require.Contains(t, h.branchFile("issuesmith/issue-1", "greet.go"), "// review line 2: @issuesmith say hi instead")

	// The review comment's author is credited on the follow-up commit.
	require.Contains(t, h.branchMessage("issuesmith/issue-1"), "Co-authored-by: alice <alice@users.noreply.github.com>")
}

func TestModelKeepsFailingEndsWithCommentAndNoPR(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{exploreErr: errors.New("model endpoint answered 500 five times")})
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitRun("failed", func(r *store.Run) bool { return r.State == store.StateFailed })
	h.waitProgress("issuesmith: stopped")
	require.Contains(t, run.Reason, "the explorer could not finish: model endpoint answered 500 five times")
	require.Empty(t, h.gh.PullRequests(owner, name), "no half-made PR")
	c := h.botComments()
	require.Len(t, c["progress"], 1)
	require.Contains(t, c["progress"][0].Body, "issuesmith: stopped")
	require.Contains(t, c["progress"][0].Body, "model endpoint answered 500 five times")
	require.Empty(t, c["spec"])
	is, _ := h.gh.Issue(owner, name, h.issue)
	require.NotContains(t, is.Labels, "issuesmith")
	out, _ := runGit(t.Context(), h.bare, "branch", "--list", "issuesmith/*")
	require.Empty(t, out, "no branch pushed")
}

func TestUnlabelCancelsAndApprovalIsThenIgnored(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)
	require.NoError(t, h.event(workflow.Unlabeled))
	run := h.waitRun("cancelled", func(r *store.Run) bool { return r.State == store.StateCancelled })
	require.Contains(t, run.Reason, "label was removed by @alice")
	h.eventually(func() bool {
		return strings.Contains(h.botComments()["progress"][0].Body, "issuesmith: cancelled")
	}, "condition never held")
	plan := h.botComments()["plan"][0]
	edited := editPlan(t, plan.Body)
	require.ErrorIs(t, h.event(workflow.CommentEdited, func(ev *workflow.Event) { ev.CommentID, ev.Body = plan.ID, edited }),
		workflow.ErrIgnored, "a cancelled run takes no approval")
	require.Equal(t, 0, h.agents.implementCount())
}

func TestRestartMidCodeResumesWithOnePRAndNoDuplicates(t *testing.T) {
	t.Parallel()
	hit := make(chan struct{})
	h := newHarness(t, &agents{implementHit: hit, block: true})
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/implement" }))
	<-hit
	h.stop(200 * time.Millisecond) // the process goes away mid-code

	h.agents.mu.Lock()
	h.agents.block, h.agents.implementHit = false, nil
	h.agents.mu.Unlock()
	h.start()
	run := h.waitRun("done", func(r *store.Run) bool { return r.State == store.StateDone })
	require.Len(t, h.gh.PullRequests(owner, name), 1)
	c := h.botComments()
	require.Len(t, c["progress"], 1)
	require.Len(t, c["spec"], 1)
	require.Len(t, c["plan"], 1)
	require.Equal(t, 2, h.agents.implementCount(), "coding ran again after the restart")
	require.Equal(t, 2, h.branchCommits("issuesmith/issue-1"), "seed + one commit")

	// A repeated /implement after the end opens no second PR.
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/implement" }))
	h.waitRun("second run done", func(r *store.Run) bool { return r.ID != run.ID && !r.Open() })
	require.Len(t, h.gh.PullRequests(owner, name), 1)
	require.Len(t, h.botComments()["progress"], 1)
}

func TestResumedEarlierStageJobDoesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitRun("approval", waitingForApproval)
	h.waitProgress("waiting for you")
	plan := h.botComments()["plan"][0]

	// As after a crash: River runs finished explore and plan jobs again.
	for _, stage := range []string{workflow.StageExplore, workflow.StagePlan} {
		id, _, err := h.eng.Queue().Insert(t.Context(), workflow.StageArgs{RunID: run.ID, Stage: stage}, nil)
		require.NoError(t, err)
		h.eventually(func() bool {
			j, err := h.eng.Queue().Job(t.Context(), id)
			return err == nil && j.State == "completed"
		}, "condition never held")
	}
	h.agents.mu.Lock()
	require.Equal(t, 1, h.agents.explores)
	h.agents.mu.Unlock()
	again, ok := h.gh.Comment(plan.ID)
	require.True(t, ok)
	require.Equal(t, plan.Body, again.Body, "the plan (maybe edited by people) is not rewritten")
	require.Equal(t, 1, len(h.botComments()["plan"]))

	// A label added again while the run is open starts nothing new.
	require.ErrorIs(t, h.event(workflow.Labeled), workflow.ErrIgnored)
}

// The same journey with River and the store on PostgreSQL.
func TestLabelToPROnPostgres(t *testing.T) {
	t.Parallel()
	srv := storetest.StartPostgres(t)
	h := newHarnessOn(t, &agents{}, srv.Open(t))
	require.Equal(t, store.Postgres, h.st.Dialect())
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)
	h.waitProgress("waiting for you")
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/implement" }))
	h.waitRun("done", func(r *store.Run) bool { return r.State == store.StateDone })
	h.waitProgress("issuesmith: done")
	prs := h.gh.PullRequests(owner, name)
	require.Len(t, prs, 1)
	require.Equal(t, "// step one for greet.go\n// step two for greet.go\n// step three for greet.go", h.branchFile(prs[0].Head, "greet.go"))
	c := h.botComments()
	require.Len(t, c["progress"], 1)
	require.Len(t, c["spec"], 1)
	require.Len(t, c["plan"], 1)
}

func TestCoderModelFailingHalfWayPushesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{implementErr: errors.New("model endpoint answered 503 five times")})
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/implement" }))
	run := h.waitRun("failed", func(r *store.Run) bool { return r.State == store.StateFailed })
	h.waitProgress("issuesmith: stopped")
	require.Contains(t, run.Reason, "the coder could not finish: model endpoint answered 503 five times")
	require.Empty(t, h.gh.PullRequests(owner, name))
	out, _ := runGit(t.Context(), h.bare, "branch", "--list", "issuesmith/*")
	require.Empty(t, out, "the half-written change is not pushed")
}

// A PostgreSQL replica that dies mid-stage leaves its job running and its
// issue leased. Another replica takes the job over within minutes (River's
// rescuer after RescueAfter, the lease after LeaseTTL), not after the job
// timeout plus a minute.
func TestCrashedReplicasJobIsRescuedOnPostgres(t *testing.T) {
	t.Parallel()
	srv := storetest.StartPostgres(t)
	ag := &agents{}
	h := newHarnessOn(t, ag, srv.Open(t))
	h.stop(5 * time.Second)
	h.eng = h.build() // not started: the job is queued, then "crashes"
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/spec" }))
	ctx := t.Context()
	var id int64
	require.NoError(t, h.st.DB().QueryRowContext(ctx, `UPDATE river_job SET state = 'running', attempt = 1,
		attempted_at = now() - interval '10 minutes', attempted_by = ARRAY['dead-replica']
		WHERE kind = 'issuesmith_stage' RETURNING id`).Scan(&id))
	run, err := h.st.LatestRun(ctx, store.IssueKey{Owner: owner, Repo: name, Issue: h.issue})
	require.NoError(t, err)
	ok, err := h.st.AcquireLease(ctx, run.IssueKey, fmt.Sprintf("job-%d-1", id), -time.Minute) // heartbeats stopped
	require.NoError(t, err)
	require.True(t, ok)

	started := time.Now()
	require.NoError(t, h.eng.Start(ctx))
	t.Cleanup(func() { h.stop(5 * time.Second) })
	// River's maintenance services (the rescuer among them) run only on the
	// elected leader, and election plus the first rescuer pass can take tens
	// of seconds on a loaded 2-core CI machine: wait longer than the
	// harness's usual 15 s. The figure that matters is far below the old
	// "job timeout plus a minute" (61 min), which is what this test guards.
	h.eventually(func() bool {
		r, err := h.st.LatestRun(ctx, store.IssueKey{Owner: owner, Repo: name, Issue: h.issue})
		return err == nil && waitingForApproval(r)
	}, "the dead replica's job was never rescued")
	t.Logf("the dead replica's explore job ran %s after a live replica started", time.Since(started).Round(time.Millisecond))
	ag.mu.Lock()
	defer ag.mu.Unlock()
	require.Equal(t, 1, ag.explores)
}

// The explorer ends on the model's failure (issue 34): the progress comment
// says the model failed, not the issue, names the setting, and no spec asks
// the issue's author anything.
func TestModelFailureIsNotBlamedOnTheIssue(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{exploreErr: fmt.Errorf("explore: %w", &llm.ModelFailure{Role: llm.RoleExplorer,
		Reason: llm.StopFinished, Cause: "answered in prose every turn instead of calling a tool",
		Fix: "set ISSUESMITH_MODEL_ROLE_PROTOCOLS (explorer:text)"})})
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitRun("failed", func(r *store.Run) bool { return r.State == store.StateFailed })
	require.Contains(t, run.Reason, "because of the model, not this issue")
	h.waitProgress("issuesmith: stopped")
	c := h.botComments()
	require.Len(t, c["progress"], 1)
	body := c["progress"][0].Body
	for _, want := range []string{"not this issue", "answered in prose every turn", "ISSUESMITH_MODEL_ROLE_PROTOCOLS (explorer:text)", "/retry"} {
		require.Contains(t, body, want)
	}
	require.NotContains(t, body, "not clear enough")
	require.Empty(t, c["spec"], "no spec asks the author questions")
}
