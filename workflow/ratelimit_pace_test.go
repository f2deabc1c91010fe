package workflow_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow"
)

// TestPacingStopsJobsBeforeTheLimitIsSpent: the installation's primary
// limit (5,000 an hour, GitHub's X-RateLimit-* headers on every answer of
// the fake) runs down into the client's reserve while the label job or a
// stage runs: the client holds the job's next call back unsent, the job is
// snoozed until the reset (no attempt used), the progress comment says
// the run waits (written from the reserve: GitHub never refuses a request
// for the limit), and after the reset the run ends as it would have
// without the limit, the label not lost.
func TestPacingStopsJobsBeforeTheLimitIsSpent(t *testing.T) {
	t.Parallel()
	reserve := ghapp.Reserve(5000)
	for _, tc := range []struct {
		name    string
		atStage bool // the limit runs down as the explorer starts; else before the label
		// left is how many requests above the reserve are left.
		left int
	}{
		{"label job", false, 2},
		{"stage", true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ag := &agents{}
			h := newHarness(t, ag)
			var reset atomic.Pointer[time.Time]
			runDown := func() {
				at := time.Now().Add(3 * time.Second)
				reset.Store(&at)
				h.gh.SetRateLimit(h.gh.Installation(), 5000, reserve+tc.left, at)
			}
			if tc.atStage {
				ag.onExplore = func() {
					if reset.Load() == nil {
						runDown()
					}
				}
			} else {
				runDown()
			}
			require.NoError(t, h.event(workflow.Labeled))
			run := h.waitRun("approval", func(r *store.Run) bool { return waitingForApproval(r) || !r.Open() })
			require.Equal(t, store.StateWaiting, run.State, run.Reason)
			require.False(t, time.Now().Before(*reset.Load()), "the job waited for the reset")
			require.Len(t, h.botComments()["spec"], 1)
			require.Len(t, h.botComments()["progress"], 1)

			requireSnoozed(t, h)

			said, refused := 0, 0
			for _, r := range h.gh.Requests() {
				if r.Status < 300 && strings.Contains(r.Body, waitingWords) {
					said++
				}
				if r.Status == http.StatusForbidden || r.Status == http.StatusTooManyRequests {
					refused++
				}
			}
			require.Zero(t, refused, "the bot stopped before GitHub had to refuse it")
			if tc.atStage {
				require.Equal(t, 1, said, "the wait is said once, from the reserve")
			} else {
				require.Zero(t, said, "held before the run began: no progress comment to say it in")
			}
			require.NotContains(t, h.botComments()["progress"][0].Body, waitingWords, "the run went on")
		})
	}
}
