package main

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/store"
)

// A repository removed from the App's installation ends its run waiting
// for approval, in the database only: the fake GitHub sees no request for
// it, and nothing waits forever for an approval that cannot come.
func TestEndToEndRepositoryRemovedCancelsWaitingRun(t *testing.T) {
	// The explorer and planner exchanges of the shared script: no coding.
	model := llmtest.NewServer(t, llmtest.LoadScript(t, "testdata/e2e/script.yaml")[:2])
	e := newE2E(t, model.URL())
	e.start()
	require.Equal(t, http.StatusAccepted, e.labelIssue())
	e.waitProgress("waiting for you")
	st, err := store.Open(t.Context(), filepath.Join(e.dir, "issuesmith.db"))
	require.NoError(t, err)
	defer st.Close()
	// The plan stage's job edits the progress comment again after it says
	// "waiting for you": count GitHub's requests once no job is left to run.
	require.Eventually(t, func() bool {
		var n int
		err := st.DB().QueryRowContext(t.Context(), `SELECT count(*) FROM river_job
			WHERE state IN ('available', 'running', 'retryable', 'pending')`).Scan(&n)
		return err == nil && n == 0
	}, 30*time.Second, 20*time.Millisecond, "the plan stage's jobs did not end")

	before := len(e.gh.Requests())
	require.Equal(t, http.StatusAccepted, e.deliver("installation_repositories", "installation_repositories.removed.json",
		func(p map[string]any) {
			p["repositories_removed"] = []any{map[string]any{"id": 1, "name": e2eRepo, "full_name": e2eOwner + "/" + e2eRepo}}
		}))
	// The delivery's intake job runs after the answer: wait for its effect.
	var run *store.Run
	require.Eventually(t, func() bool {
		run, err = st.LatestRun(t.Context(), store.IssueKey{Owner: e2eOwner, Repo: e2eRepo, Issue: e.issue})
		return err == nil && run.State == store.StateCancelled
	}, 30*time.Second, 20*time.Millisecond, "the waiting run was not cancelled")
	require.Contains(t, run.Reason, "removed")
	require.NoError(t, e.stop())
	require.Len(t, e.gh.Requests(), before, "no GitHub call for a removed repository")
}
