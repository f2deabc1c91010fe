package workflow_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow"
)

// waitingWords are the progress comment's words while a run waits for
// GitHub's rate limit.
const waitingWords = "waiting for GitHub's rate limit until "

// TestRateLimitedJobsWaitForTheReset: GitHub's rate limit — 403 and 429,
// primary (the installation's limit spent for every call until the reset)
// and secondary (Retry-After) — met by the label job or a stage: the job is
// snoozed until the reset, no attempt used, and the run ends as it would
// have without the limit. A stage's wait is said once in the progress
// comment, when GitHub lets the bot write it.
func TestRateLimitedJobsWaitForTheReset(t *testing.T) {
	t.Parallel()
	const reposOp = "GET /repos/{owner}/{repo}"
	for _, tc := range []struct {
		name string
		// limit is injected before the label (label job) or when the
		// explorer starts (stage), for the reset given.
		limit   func(gh *ghtest.Server, reset time.Time) ghtest.Fault
		atStage bool
		said    bool // the waiting line reaches the issue
	}{
		{"label job, 429 primary", func(gh *ghtest.Server, reset time.Time) ghtest.Fault {
			return gh.PrimaryLimit(ghtest.AnyOp, http.StatusTooManyRequests, reset, -1)
		}, false, false},
		{"label job, 403 primary", func(gh *ghtest.Server, reset time.Time) ghtest.Fault {
			return gh.PrimaryLimit(ghtest.AnyOp, http.StatusForbidden, reset, -1)
		}, false, false},
		{"label job, 429 secondary", func(gh *ghtest.Server, reset time.Time) ghtest.Fault {
			return gh.SecondaryLimit(reposOp, http.StatusTooManyRequests, time.Until(reset).Round(time.Second), -1)
		}, false, false},
		{"stage, 429 secondary", func(gh *ghtest.Server, reset time.Time) ghtest.Fault {
			return gh.SecondaryLimit(reposOp, http.StatusTooManyRequests, time.Until(reset).Round(time.Second), -1)
		}, true, true},
		{"stage, 403 secondary", func(gh *ghtest.Server, reset time.Time) ghtest.Fault {
			return gh.SecondaryLimit(reposOp, http.StatusForbidden, time.Until(reset).Round(time.Second), -1)
		}, true, true},
		{"stage, 429 primary", func(gh *ghtest.Server, reset time.Time) ghtest.Fault {
			return gh.PrimaryLimit(ghtest.AnyOp, http.StatusTooManyRequests, reset, -1)
		}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ag := &agents{}
			h := newHarness(t, ag)
			var until time.Time // when the fault ends: GitHub's reset
			limit := func() {
				f := tc.limit(h.gh, time.Now().Add(3*time.Second))
				until = f.Until
				h.gh.Inject(f)
			}
			if tc.atStage {
				// The explore job checks out and explores; its next call
				// to GitHub (the spec comment) and the job after it meet
				// the limit.
				ag.onExplore = func() {
					if until.IsZero() {
						limit()
					}
				}
			} else {
				limit()
			}
			require.NoError(t, h.event(workflow.Labeled))
			run := h.waitRun("approval", func(r *store.Run) bool { return waitingForApproval(r) || !r.Open() })
			require.Equal(t, store.StateWaiting, run.State, run.Reason)
			require.False(t, time.Now().Before(until), "the job waited for the reset")
			require.Len(t, h.botComments()["spec"], 1)
			require.Len(t, h.botComments()["progress"], 1)

			requireSnoozed(t, h)

			said := 0
			for _, r := range h.gh.Requests() {
				if r.Status < 300 && strings.Contains(r.Body, waitingWords) {
					said++
				}
			}
			if tc.said {
				require.Equal(t, 1, said, "the wait is said once")
			} else {
				require.Zero(t, said)
			}
			require.NotContains(t, h.botComments()["progress"][0].Body, waitingWords, "the run went on")
		})
	}
}

// TestIntakeChecksTheSendersWrite: the webhook records a delivery before
// any call to GitHub; its intake job asks whether the sender may write.
// A reader starts nothing; a writer's label, with the permission check
// rate-limited (429, the installation's limit spent), waits for the reset
// and then starts the run; an installation GitHub no longer knows asks
// nothing.
func TestIntakeChecksTheSendersWrite(t *testing.T) {
	t.Parallel()
	const permOp = "GET /repos/{owner}/{repo}/collaborators/{username}/permission"
	accept := func(h *harness, id, sender string) {
		ev := workflow.Event{Kind: workflow.Labeled, Delivery: id, GitHubEvent: "issues", InstallationID: h.gh.Installation(),
			Owner: owner, Repo: name, Number: h.issue, Sender: sender, Label: "issuesmith", CheckWrite: true}
		dup, err := h.eng.Accept(t.Context(), []string{"id:" + id}, ev)
		require.NoError(t, err)
		require.Empty(t, dup)
	}
	intakeDone := func(h *harness) {
		h.eventually(func() bool {
			jobs, err := h.eng.Queue().Jobs(t.Context(), nil)
			require.NoError(t, err)
			for _, j := range jobs {
				if j.Kind == "issuesmith_intake" && j.State != "completed" {
					return false
				}
			}
			return true
		}, "condition never held")
	}
	t.Run("reader", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, &agents{})
		h.gh.SetPermission(owner, name, "mallory", "read")
		accept(h, "d-reader", "mallory")
		intakeDone(h)
		h.waitJobsDone()
		_, err := h.st.LatestRun(t.Context(), store.IssueKey{Owner: owner, Repo: name, Issue: h.issue})
		require.ErrorIs(t, err, store.ErrNotFound, "no run for a reader")
		require.Equal(t, 1, h.gh.Calls(permOp))
	})
	t.Run("writer, rate-limited check", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, &agents{})
		f := h.gh.PrimaryLimit(ghtest.AnyOp, http.StatusTooManyRequests, time.Now().Add(3*time.Second), -1)
		h.gh.Inject(f)
		accept(h, "d-writer", "alice")
		run := h.waitRun("approval", func(r *store.Run) bool { return waitingForApproval(r) || !r.Open() })
		require.Equal(t, store.StateWaiting, run.State, run.Reason)
		require.False(t, time.Now().Before(f.Until))
		jobs, err := h.eng.Queue().Jobs(t.Context(), nil)
		require.NoError(t, err)
		for _, j := range jobs {
			require.LessOrEqual(t, j.Attempt, 1, "%s: a snooze is no attempt", j.Kind)
		}
		require.GreaterOrEqual(t, h.gh.Calls(permOp), 2, "asked again after the reset")
	})
	t.Run("uninstalled", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, &agents{})
		h.gh.Uninstall(h.gh.Installation())
		accept(h, "d-gone", "alice")
		intakeDone(h)
		jobs, err := h.eng.Queue().Jobs(t.Context(), nil)
		require.NoError(t, err)
		for _, j := range jobs {
			require.Equal(t, 1, j.Attempt, "%s: done at once", j.Kind)
		}
		require.Zero(t, h.gh.Calls(permOp))
	})
}
