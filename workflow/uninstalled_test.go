package workflow_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow"
)

// Removing the repository from the installation ends its run waiting for
// approval, in the store only (GitHub no longer lets the App in); a later
// label starts a new run. Another repository's removal leaves it alone.
func TestRepositoryRemovedCancelsItsRunsWithoutGitHub(t *testing.T) {
	h := newHarness(t, &agents{})
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitRun("approval", waitingForApproval)
	h.waitProgress("waiting for you")
	h.waitJobsDone()

	err := h.eng.Uninstalled(t.Context(), h.gh.Installation(), []string{owner + "/other"})
	require.ErrorIs(t, err, workflow.ErrIgnored)
	r, err := h.st.Run(t.Context(), run.ID)
	require.NoError(t, err)
	require.Equal(t, store.StateWaiting, r.State)

	calls := len(h.gh.Requests())
	require.NoError(t, h.eng.Uninstalled(t.Context(), h.gh.Installation(), []string{owner + "/" + name}))
	r, err = h.st.Run(t.Context(), run.ID)
	require.NoError(t, err)
	require.Equal(t, store.StateCancelled, r.State)
	require.Contains(t, r.Reason, "removed")
	h.waitJobsDone() // a report job would have run
	require.Len(t, h.gh.Requests(), calls, "no GitHub call for a removed repository")

	// Redelivered: nothing open any more.
	require.ErrorIs(t, h.eng.Uninstalled(t.Context(), h.gh.Installation(), []string{owner + "/" + name}), workflow.ErrIgnored)

	// Installed again: the label starts a fresh run.
	require.NoError(t, h.event(workflow.Labeled))
	next := h.waitRun("approval again", waitingForApproval)
	require.NotEqual(t, run.ID, next.ID)
}

// Deleting the installation ends all its open runs.
func TestInstallationDeletedCancelsItsRuns(t *testing.T) {
	h := newHarness(t, &agents{})
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitRun("approval", waitingForApproval)
	h.waitJobsDone()
	require.ErrorIs(t, h.eng.Uninstalled(t.Context(), h.gh.Installation()+1, nil), workflow.ErrIgnored)
	require.NoError(t, h.eng.Uninstalled(t.Context(), h.gh.Installation(), nil))
	r, err := h.st.Run(t.Context(), run.ID)
	require.NoError(t, err)
	require.Equal(t, store.StateCancelled, r.State)
	require.Contains(t, r.Reason, "uninstalled")
}
