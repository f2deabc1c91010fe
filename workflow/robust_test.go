package workflow_test

import (
	"errors"
	"net/http"
	"testing"

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
	run := h.waitRun("failed", func(r *store.Run) bool { return r.State == store.StateFailed })
	require.Contains(t, run.Reason, "the explorer could not finish: model answered garbage")
	_, err := h.st.OpenRunFor(t.Context(), store.IssueKey{Owner: owner, Repo: name, Issue: h.issue})
	require.ErrorIs(t, err, store.ErrNotFound, "no run left open")
}
