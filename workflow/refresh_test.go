package workflow_test

import (
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow"
)

// refreshCount is how many times the summarizer ran.
func (a *agents) refreshCount() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.refreshes
}

// A push while a refresh runs may not be in its checkout: exactly one more
// refresh follows, however many pushes came meanwhile, and it never runs
// alongside the first.
func TestPushDuringARefreshIsFollowedByOneMore(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	started, release := make(chan struct{}, 4), make(chan struct{})
	var running, overlap atomic.Int32
	h.agents.onRefresh = func() {
		if running.Add(1) > 1 {
			overlap.Store(1)
		}
		defer running.Add(-1)
		started <- struct{}{}
		if h.agents.refreshCount() == 1 {
			<-release
		}
	}
	require.NoError(t, h.event(workflow.Pushed))
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the first refresh did not start")
	}
	require.NoError(t, h.event(workflow.Pushed))
	require.NoError(t, h.event(workflow.Pushed))
	h.waitObserved("refresh", "snoozed", 1) // the follow-up waits for the running refresh
	require.Equal(t, 1, h.agents.refreshCount(), "the follow-up does not run alongside")
	close(release)
	h.eventually(func() bool {
		var n int
		err := h.st.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM river_job WHERE kind = 'issuesmith_refresh' AND state = 'completed'`).Scan(&n)
		return err == nil && n == 2
	}, "two refreshes complete")
	h.waitJobsDone("issuesmith_refresh") // a third would be queued or running
	require.Equal(t, 2, h.agents.refreshCount(), "one follow-up for both pushes")
	require.Zero(t, overlap.Load(), "refreshes of one repository never overlap")
}

// completedJobs counts the completed River jobs of a kind.
func (h *harness) completedJobs(kind string) int {
	var n int
	err := h.st.DB().QueryRowContext(h.t.Context(), `SELECT COUNT(*) FROM river_job WHERE kind = ? AND state = 'completed'`, kind).Scan(&n)
	require.NoError(h.t, err)
	return n
}

// The periodic refresh refreshes the repositories the bot has been used
// on, and none that it has not.
func TestPeriodicRefreshCoversUsedRepositories(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	h.stop(10 * time.Second)
	h.refreshSchedule = river.PeriodicInterval(100 * time.Millisecond)
	h.start()
	h.eventually(func() bool { return h.completedJobs(workflow.RefreshAllArgs{}.Kind()) >= 1 }, "the periodic job ran")
	require.Zero(t, h.agents.refreshCount(), "no repository used yet")

	_, _, err := h.st.OpenRun(t.Context(), store.IssueKey{Owner: owner, Repo: name, Issue: h.issue}, h.gh.Installation(), "alice")
	require.NoError(t, err)
	// Refresh counts a call before it lists the checkout: wait for the
	// listing, not the count.
	h.eventually(func() bool {
		h.agents.mu.Lock()
		defer h.agents.mu.Unlock()
		return slices.Contains(h.agents.refreshed, "greet.go")
	}, "the used repository is refreshed from a checkout of the default branch")
}

// A repository the bot worked on is refreshed every night for as long as
// the installation keeps it, also after River deleted the job rows of that
// work (a day after they completed); an uninstall forgets it.
func TestPeriodicRefreshOutlivesRiversJobRows(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &agents{})
	require.NoError(t, h.event(workflow.Pushed)) // no run: known from the push alone
	h.eventually(func() bool { return h.completedJobs(workflow.RefreshArgs{}.Kind()) == 1 }, "the push refreshed")
	restart := func() {
		h.stop(10 * time.Second)
		// What River's cleaner does to completed jobs after 24 hours.
		_, err := h.st.DB().ExecContext(t.Context(), `DELETE FROM river_job`)
		require.NoError(t, err)
		h.refreshSchedule = river.PeriodicInterval(100 * time.Millisecond)
		h.start()
		h.eventually(func() bool { return h.completedJobs(workflow.RefreshAllArgs{}.Kind()) >= 1 }, "the periodic job ran")
	}
	restart()
	h.eventually(func() bool { return h.completedJobs(workflow.RefreshArgs{}.Kind()) >= 1 }, "the repository is still refreshed")
	require.GreaterOrEqual(t, h.agents.refreshCount(), 2)

	require.NoError(t, h.eng.Uninstalled(t.Context(), h.gh.Installation(), nil))
	restart()
	// The pass that completed queued whatever it would refresh.
	var queued int
	require.NoError(t, h.st.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM river_job WHERE kind = ?`,
		workflow.RefreshArgs{}.Kind()).Scan(&queued))
	require.Zero(t, queued, "an uninstalled repository is not refreshed")
}
