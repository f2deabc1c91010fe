package workflow_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow"
)

// labels sets the issue's labels on the fake forge and returns the
// LabelsSet event's change: the delivery's own labels are stale (as
// Gitea's can be), so only the forge's answer may count.
func (h *harness) labels(names ...string) func(*workflow.Event) {
	h.gh.SetLabels(owner, name, h.issue, names...)
	return func(ev *workflow.Event) { ev.Label, ev.Labels = "", []string{"stale"} }
}

// TestLabelsSetActsOnTheLabelThatChanged: a forge that sends only an
// issue's labels as they are now (Gitea) starts a run when the trigger
// label appears, does nothing more while it stays (another label added),
// cancels the run when it goes, and ignores a set that did not change.
func TestLabelsSetActsOnTheLabelThatChanged(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	require.NoError(t, h.event(workflow.LabelsSet, h.labels("bug")))
	h.waitJobsDone()
	_, err := h.st.LatestRun(t.Context(), store.IssueKey{Owner: owner, Repo: name, Issue: h.issue})
	require.ErrorIs(t, err, store.ErrNotFound, "another label starts nothing")

	require.NoError(t, h.event(workflow.LabelsSet, h.labels("bug", "issuesmith")))
	first := h.waitRun("approval", waitingForApproval)
	require.Equal(t, "issuesmith", first.TriggerLabel)

	require.NoError(t, h.event(workflow.LabelsSet, h.labels("bug", "ISSUESMITH", "docs")))
	h.waitJobsDone()
	run := h.waitRun("approval", waitingForApproval)
	require.Equal(t, first.ID, run.ID, "the trigger label stayed: no second run")

	require.ErrorIs(t, h.event(workflow.LabelsSet, h.labels("bug", "issuesmith", "docs")), workflow.ErrIgnored)

	require.NoError(t, h.event(workflow.LabelsSet, h.labels("docs")))
	run = h.waitRun("cancelled", func(r *store.Run) bool { return r.State == store.StateCancelled })
	require.Contains(t, run.Reason, `"issuesmith" label was removed by @alice`)
}

// TestRepositoryIsBoundToItsForge: once a repository has a run under one
// forge's installation, another forge's deliveries for a repository of the
// same name are ignored, and a third installation of the first forge (a
// reinstalled App) still reaches it.
func TestRepositoryIsBoundToItsForge(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	h.forgeOf = func(id int64) string {
		if id < 0 {
			return "gitea"
		}
		return "github"
	}
	h.stop(0)
	h.start()
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)

	err := h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.InstallationID, ev.Body = -1, "/stop" })
	require.ErrorIs(t, err, workflow.ErrIgnored)
	require.Contains(t, err.Error(), "is bound to github, not gitea")
	h.waitRun("still waiting", waitingForApproval)

	err = h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.InstallationID, ev.Body = h.gh.Installation()+1000, "/stop" })
	require.NotContains(t, errText(err), "bound to")
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
