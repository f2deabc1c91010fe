package workflow_test

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow"
)

// The App is uninstalled (or the repository removed from it) while the
// explorer works, and the explorer then fails: the failure cannot be
// reported on GitHub, yet the run must end in the store. A run left open
// would swallow every later label ("a run is already going") forever.
func TestRunEndsWhenGitHubIsGoneAtFailure(t *testing.T) {
	t.Parallel()
	ag := &agents{exploreErr: errors.New("model answered garbage")}
	h := newHarness(t, ag)
	ag.onExplore = func() {
		h.gh.Inject(ghtest.Fault{Op: "GET /repos/{owner}/{repo}", Status: http.StatusNotFound,
			Body: `{"message":"Not Found"}`, Times: -1})
	}
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitState("failed", func(r *store.Run) bool { return r.State == store.StateFailed })
	require.Contains(t, run.Reason, "the explorer could not finish: model answered garbage")
	_, err := h.st.OpenRunFor(t.Context(), store.IssueKey{Owner: owner, Repo: name, Issue: h.issue})
	require.ErrorIs(t, err, store.ErrNotFound, "no run left open")
}

// The label is removed and added again at once: the first run is
// cancelled and a second one starts. The first run's cancel report must
// not take the label the person just put back, nor leave "cancelled" on
// the progress comment the second run now owns.
func TestLabelRemovedAndReaddedQuicklyKeepsTheLabel(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	require.NoError(t, h.event(workflow.Labeled))
	first := h.waitRun("approval", waitingForApproval)
	h.gh.SetLabels(owner, name, h.issue)
	require.NoError(t, h.event(workflow.Unlabeled))
	h.gh.SetLabels(owner, name, h.issue, "issuesmith")
	require.NoError(t, h.event(workflow.Labeled))
	second := h.waitRun("second run waits", func(r *store.Run) bool { return r.ID != first.ID && waitingForApproval(r) })
	h.waitJobsDone()
	is, _ := h.gh.Issue(owner, name, h.issue)
	require.Contains(t, is.Labels, "issuesmith", "the label put back stays")
	c := h.botComments()["progress"]
	require.Len(t, c, 1)
	require.NotContains(t, c[0].Body, "issuesmith: cancelled")
	require.Contains(t, c[0].Body, "waiting for you")
	require.True(t, second.Open())
}

// GitHub answers 502 to every try of posting the spec comment, after the
// explorer finished: the job is retried and posts the spec it already
// has, without exploring (and paying for it) again.
func TestSpecPostFailingAfterExploreDoesNotExploreAgain(t *testing.T) {
	t.Parallel()
	ag := &agents{}
	h := newHarness(t, ag)
	var once sync.Once
	ag.onExplore = func() {
		// The transport tries a write five times; all five fail.
		once.Do(func() {
			h.gh.Inject(ghtest.Fault{Op: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
				Status: http.StatusBadGateway, Body: `{"message":"Server Error"}`, Times: 5})
		})
	}
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitRun("approval", waitingForApproval)
	ag.mu.Lock()
	explores := ag.explores
	ag.mu.Unlock()
	require.Equal(t, 1, explores, "the explorer ran once")
	require.Len(t, h.botComments()["spec"], 1)
	require.EqualValues(t, 1000+500, run.PromptTokens, "one explore and one plan paid for")
}

// The App is uninstalled and installed again while a plan waits for
// approval: the new installation has a new id, and the approval (sent
// with it) must be worked with it, not with the dead one.
func TestApprovalAfterReinstallUsesTheNewInstallation(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	const oldID = 7
	var mu sync.Mutex
	uninstalled := false
	h.installation = func(id int64) (int64, error) {
		mu.Lock()
		defer mu.Unlock()
		if id != oldID {
			return id, nil
		}
		if uninstalled {
			return 0, errors.New("installation 7 was deleted")
		}
		return h.gh.Installation(), nil
	}
	require.NoError(t, h.event(workflow.Labeled, func(ev *workflow.Event) { ev.InstallationID = oldID }))
	h.waitRun("approval", waitingForApproval)
	mu.Lock()
	uninstalled = true
	mu.Unlock()
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/implement" }))
	run := h.waitRun("done", func(r *store.Run) bool { return !r.Open() })
	require.Equal(t, store.StateDone, run.State, run.Reason)
	require.Equal(t, h.gh.Installation(), run.InstallationID)
	require.Len(t, h.gh.PullRequests(owner, name), 1)
}

// A person unticks every file of the spec and asks for a plan: that is an
// edit to fix, not a model failure. The run waits, says what is wrong,
// and the plan comment keeps what it had.
func TestSpecEditedToNoFilesWaitsForAFix(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)
	h.waitProgress("waiting for you")
	spec := h.botComments()["spec"][0]
	body := strings.Replace(spec.Body, "- [x] **add** `greet_test.go`", "- [ ] **add** `greet_test.go`", 1)
	body = strings.Replace(body, "- [x] **modify** `greet.go`", "- [ ] **modify** `greet.go`", 1)
	require.NotContains(t, body, "- [x] **modify** `greet.go`")
	h.gh.EditComment(spec.ID, body)
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/plan" }))
	run := h.waitRun("waiting for a fix", func(r *store.Run) bool {
		return r.State == store.StateWaiting && r.Stage == workflow.StagePlan
	})
	require.Contains(t, run.Step, "no files")
	h.waitProgress("no files")
	require.Contains(t, h.botComments()["plan"][0].Body, "`greet.go`", "the plan is not replaced by an empty one")
}

// A person removes every item of the plan and approves it: nothing is
// coded, and the run waits for a plan with something in it.
func TestPlanEditedToNoItemsWaitsForAFix(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)
	h.waitProgress("waiting for you")
	plan := h.botComments()["plan"][0]
	body := editPlan(t, plan.Body)
	i, j := strings.Index(body, "### 1."), strings.Index(body, "\n---\n")
	require.True(t, i > 0 && j > i)
	body = body[:i] + body[j+1:] // every item gone; the approve box stays above
	require.Contains(t, body, "- [x] **Approve and implement**")
	h.gh.EditComment(plan.ID, body)
	require.NoError(t, h.event(workflow.CommentEdited, func(ev *workflow.Event) { ev.CommentID, ev.Body = plan.ID, body }))
	run := h.waitRun("waiting for a fix", func(r *store.Run) bool {
		return r.State == store.StateWaiting && r.Stage == workflow.StageCode
	})
	require.Contains(t, run.Step, "no file sections")
	h.waitProgress("no file sections")
	require.Equal(t, 0, h.agents.implementCount())
}

// GitHub's rate limit runs out mid-stage with a reset further away than
// the transport waits: the stage waits for the reset and carries on; it
// does not burn its attempts and end the run as failed.
func TestRateLimitMidStageWaitsForTheReset(t *testing.T) {
	t.Parallel()
	ag := &agents{}
	h := newHarness(t, ag)
	reset := time.Now().Add(3 * time.Second)
	var once sync.Once
	ag.onExplore = func() {
		once.Do(func() {
			h.gh.Inject(ghtest.Fault{Op: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments", Status: http.StatusForbidden,
				Header: http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Limit": {"5000"},
					"X-Ratelimit-Reset": {strconv.FormatInt(reset.Unix(), 10)}},
				Body: `{"message":"API rate limit exceeded for installation ID 42."}`, Times: 3}) // as many as a job's attempts
		})
	}
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitRun("approval", func(r *store.Run) bool { return waitingForApproval(r) || !r.Open() })
	require.Equal(t, store.StateWaiting, run.State, run.Reason)
	require.False(t, time.Now().Before(reset), "the stage waited for the reset")
	require.Len(t, h.botComments()["spec"], 1)
}

// The bot's PR is merged, then someone mentions the bot on it: the bot
// pushes nothing to the merged branch (GitHub may have deleted it, and a
// push would bring it back) and says so in the conversation.
func TestMentionOnAMergedPRChangesNothingAndSaysWhy(t *testing.T) {
	t.Parallel()
	ag := &agents{}
	h := newHarness(t, ag)
	pr := h.openPR()
	before := h.branchCommits(pr.Head)
	h.gh.ClosePR(owner, name, pr.Number, true)
	comment := h.gh.AddComment(owner, name, pr.Number, "alice", "@issuesmith thanks, one more tweak please")
	require.NoError(t, h.event(workflow.Mention, func(ev *workflow.Event) {
		ev.Number, ev.CommentID, ev.Body = pr.Number, comment, "@issuesmith thanks, one more tweak please"
	}))
	h.eventually(func() bool { return len(h.prReplies(pr.Number)) == 1 }, "condition never held")
	h.waitJobsDone()
	require.Contains(t, h.prReplies(pr.Number)["reply-comment-"+itoa(comment)], "merged")
	require.Equal(t, before, h.branchCommits(pr.Head), "nothing pushed to the merged branch")
	ag.mu.Lock()
	defer ag.mu.Unlock()
	require.Empty(t, ag.reviews, "the coder was not asked")
}

// A person closes the bot's PR, then comments /retry: a new run codes the
// approved plan again and opens a new PR; the closed one stays closed and
// there is still one progress comment.
func TestRetryAfterThePRWasClosedOpensANewOne(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	pr := h.openPR()
	first := h.waitRun("done", func(r *store.Run) bool { return r.State == store.StateDone })
	h.gh.ClosePR(owner, name, pr.Number, false)
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/retry" }))
	run := h.waitRun("second run done", func(r *store.Run) bool { return r.ID != first.ID && !r.Open() })
	require.Equal(t, store.StateDone, run.State, run.Reason)
	require.NotEqual(t, pr.Number, run.PRNumber)
	prs := h.gh.PullRequests(owner, name)
	require.Len(t, prs, 2)
	require.Equal(t, "closed", prs[0].State)
	require.Equal(t, "open", prs[1].State)
	require.Len(t, h.botComments()["progress"], 1)
	h.waitProgress("issuesmith: done")
}

// A stage that runs out of time on its last try ends the run with a
// comment saying so; before, River discarded the job and the run stayed
// open (and silent) for good.
func TestStageOutOfTimeOnItsLastTryEndsTheRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{block: true}) // the coder works until its context ends
	h.stop(10 * time.Second)
	h.jobTimeout = 2 * time.Second
	h.start()
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitRun("approval", waitingForApproval)
	// The code stage's last try (River would retry a first one later).
	run.Stage, run.State = workflow.StageCode, store.StateActive
	require.NoError(t, h.st.SaveOpenRun(t.Context(), run))
	_, _, err := h.eng.Queue().Insert(t.Context(), workflow.StageArgs{RunID: run.ID, Stage: workflow.StageCode, Gen: 99},
		&river.InsertOpts{MaxAttempts: 1})
	require.NoError(t, err)
	run = h.waitRun("ended", func(r *store.Run) bool { return !r.Open() })
	require.Equal(t, store.StateFailed, run.State)
	require.Contains(t, run.Reason, "the code stage did not finish within 2s")
	h.waitProgress("did not finish within 2s")
	require.Empty(t, h.gh.PullRequests(owner, name))
}

// A stage that panics (a bug of ours) ends the run with a comment at once:
// a panic repeats on every retry, and River would drop the job after its
// last one and leave the run open without a word.
func TestPanickingStageEndsTheRunWithAComment(t *testing.T) {
	t.Parallel()
	ag := &agents{}
	h := newHarness(t, ag)
	ag.onExplore = func() { panic("index out of range [3] with length 3") }
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitRun("ended", func(r *store.Run) bool { return !r.Open() })
	require.Equal(t, store.StateFailed, run.State)
	require.Contains(t, run.Reason, "internal error: index out of range")
	h.waitProgress("internal error: index out of range")
	ag.mu.Lock()
	defer ag.mu.Unlock()
	require.Equal(t, 1, ag.explores, "not retried")
}

// The approve box is ticked, and the comment edited again with the box
// still ticked (or the delivery repeated) before the code stage is done:
// the plan is coded once and one PR opens.
func TestApprovalTickedTwiceCodesOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)
	h.waitProgress("waiting for you")
	plan := h.botComments()["plan"][0]
	edited := editPlan(t, plan.Body)
	h.gh.EditComment(plan.ID, edited)
	for range 2 {
		require.NoError(t, h.event(workflow.CommentEdited, func(ev *workflow.Event) { ev.CommentID, ev.Body = plan.ID, edited }))
	}
	h.waitRun("done", func(r *store.Run) bool { return r.State == store.StateDone })
	h.waitJobsDone()
	require.Equal(t, 1, h.agents.implementCount())
	require.Len(t, h.gh.PullRequests(owner, name), 1)
	require.Equal(t, 2, h.branchCommits("issuesmith/issue-1"), "one commit on top of main")
	require.ErrorIs(t, h.event(workflow.CommentEdited, func(ev *workflow.Event) { ev.CommentID, ev.Body = plan.ID, edited }),
		workflow.ErrIgnored, "an approval after the PR opened asks nothing")
}

// GitHub cannot be told why a run failed (the installation is gone for a
// while): the run ends at once, and the progress comment says why once
// GitHub answers again.
func TestFailureIsReportedWhenGitHubIsBack(t *testing.T) {
	t.Parallel()
	ag := &agents{exploreErr: errors.New("model answered garbage")}
	h := newHarness(t, ag)
	var mu sync.Mutex
	gone := false
	h.installation = func(id int64) (int64, error) {
		mu.Lock()
		defer mu.Unlock()
		if gone {
			return 0, errors.New("installation suspended")
		}
		return id, nil
	}
	ag.onExplore = func() { mu.Lock(); gone = true; mu.Unlock() }
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitState("failed", func(r *store.Run) bool { return r.State == store.StateFailed })
	require.Contains(t, run.Reason, "model answered garbage")
	require.NotContains(t, h.botComments()["progress"][0].Body, "model answered garbage", "GitHub was not reachable")
	mu.Lock()
	gone = false
	mu.Unlock()
	h.waitProgress("model answered garbage")
	h.waitProgress("issuesmith: stopped")
	// The label goes after the comment is written: wait for it, not for
	// the comment alone.
	h.eventually(func() bool {
		is, _ := h.gh.Issue(owner, name, h.issue)
		return !slices.Contains(is.Labels, "issuesmith")
	}, "the label is reset too")
}

// GitHub refuses the progress comment's edit right after the coder is
// done: the progress comment is a report, so the stage pushes and opens
// the PR anyway instead of failing and paying for the coder again.
func TestProgressEditFailingAfterCodingDoesNotCodeAgain(t *testing.T) {
	t.Parallel()
	ag := &agents{}
	h := newHarness(t, ag)
	reports := 0
	ag.afterProgress = func() {
		if reports++; reports == 4 { // the last item's second report: Implement returns next
			h.gh.Inject(ghtest.Fault{Op: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}",
				Status: http.StatusBadGateway, Body: `{"message":"Server Error"}`, Times: 5})
		}
	}
	pr := h.openPR()
	require.Equal(t, 1, ag.implementCount(), "the coder ran once")
	require.Equal(t, "open", pr.State)
	h.waitProgress("issuesmith: done")
}

// The label is added by mistake and removed before the bot got to it: no
// run starts (the removal found no run to cancel, so the label's job must
// look at the issue as it is now).
func TestLabelRemovedBeforeTheBotStartedStartsNothing(t *testing.T) {
	t.Parallel()
	ag := &agents{}
	h := newHarness(t, ag)
	h.stop(10 * time.Second) // the label's job waits in the queue
	eng := h.build()
	require.NoError(t, eng.Handle(t.Context(), workflow.Event{Kind: workflow.Labeled, InstallationID: h.gh.Installation(),
		Owner: owner, Repo: name, Number: h.issue, Sender: "alice", Label: "issuesmith"}))
	h.gh.SetLabels(owner, name, h.issue)
	require.ErrorIs(t, eng.Handle(t.Context(), workflow.Event{Kind: workflow.Unlabeled, InstallationID: h.gh.Installation(),
		Owner: owner, Repo: name, Number: h.issue, Sender: "alice", Label: "issuesmith"}), workflow.ErrIgnored)
	h.start()
	h.waitJobsDone()
	_, err := h.st.LatestRun(t.Context(), store.IssueKey{Owner: owner, Repo: name, Issue: h.issue})
	require.ErrorIs(t, err, store.ErrNotFound, "no run")
	require.Empty(t, h.botComments())
}

// The coder failed; the person edits the plan and ticks Approve again
// (GitHub keeps the box ticked, so they untick and tick it): that is a
// new approval of the plan, and a new run codes it.
func TestApprovalAgainAfterAFailedRunCodesThePlan(t *testing.T) {
	t.Parallel()
	ag := &agents{implementErr: errors.New("model endpoint answered 503 five times")}
	h := newHarness(t, ag)
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)
	h.waitProgress("waiting for you")
	plan := h.botComments()["plan"][0]
	edited := editPlan(t, plan.Body)
	h.gh.EditComment(plan.ID, edited)
	require.NoError(t, h.event(workflow.CommentEdited, func(ev *workflow.Event) { ev.CommentID, ev.Body = plan.ID, edited }))
	failed := h.waitRun("failed", func(r *store.Run) bool { return r.State == store.StateFailed })
	ag.mu.Lock()
	ag.implementErr = nil
	ag.mu.Unlock()
	require.ErrorIs(t, h.event(workflow.CommentEdited, func(ev *workflow.Event) { ev.CommentID, ev.Body = plan.ID, edited+"\n" }),
		workflow.ErrIgnored, "an edit that leaves the box as it was is no new approval")
	unticked := strings.Replace(edited, "- [x] **Approve and implement**", "- [ ] **Approve and implement**", 1)
	require.ErrorIs(t, h.event(workflow.CommentEdited, func(ev *workflow.Event) { ev.CommentID, ev.Body = plan.ID, unticked }),
		workflow.ErrIgnored)
	require.NoError(t, h.event(workflow.CommentEdited, func(ev *workflow.Event) { ev.CommentID, ev.Body = plan.ID, edited }))
	run := h.waitRun("done", func(r *store.Run) bool { return r.ID != failed.ID && !r.Open() })
	require.Equal(t, store.StateDone, run.State, run.Reason)
	require.Len(t, h.gh.PullRequests(owner, name), 1)
	require.Len(t, h.botComments()["progress"], 1)
}
