package workflow_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow"
)

// GitHub refuses the progress edit that says the plan waits for approval,
// right after the run's wait was saved (a crash there leaves the same
// state). The retried plan job finds the run past its stage: it says the
// wait then, instead of leaving the comment at "planning" for good, and
// does not plan again.
func TestProgressEditFailingAfterThePlanSaysTheWaitOnRetry(t *testing.T) {
	t.Parallel()
	ag := &agents{}
	h := newHarness(t, ag)
	plans := 0
	ag.onPlan = func() {
		if plans++; plans == 1 { // the edit after the plan comment: one call's tries
			h.gh.Inject(ghtest.Fault{Op: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}",
				Status: http.StatusBadGateway, Body: `{"message":"Server Error"}`, Times: 5})
		}
	}
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("waiting for approval", func(r *store.Run) bool {
		return r.Stage == workflow.StageApproval && r.State == store.StateWaiting
	})
	h.waitProgress("waiting for approval")
	require.Equal(t, 1, plans, "the plan was made once")
	require.Contains(t, h.botComments()["plan"][0].Body, "step one for")
}
