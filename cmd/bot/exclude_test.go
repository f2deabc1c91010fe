package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// The default database lives in the working directory, often the checkout
// itself: summarize must not index its own database and WAL files.
func TestSummarizeSkipsItsOwnDatabaseInsideTheCheckout(t *testing.T) {
	t.Parallel()
	dir := searchTree(t)
	db := filepath.Join(dir, "issuesmith.db")
	for range 2 { // the second run finds the database (and its WAL) on disk
		out, _, err := runCmd(t, []string{"summarize", "--repo", dir, "--database", db, "--no-model"}, "", nil)
		require.NoError(t, err)
		assert.Contains(t, out, "4 files (")
	}
	assert.FileExists(t, db)
}

func TestStoreFilesIn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	assert.Equal(t, []string{"x/s.db", "x/s.db-wal", "x/s.db-shm", "x/s.db-journal"},
		storeFilesIn(dir, "file:"+filepath.Join(dir, "x", "s.db")+"?mode=rwc"))
	assert.Nil(t, storeFilesIn(dir, filepath.Join(t.TempDir(), "s.db")))
	assert.Nil(t, storeFilesIn(dir, "postgres://u@h/db"))
}

// An issue file kept inside the checkout is left out of the explorer's
// index, as bot search leaves it out of its hits: it would match its own
// words best.
func TestSolveSkipsTheIssueFileInsideTheCheckout(t *testing.T) {
	t.Parallel()
	dir := solveTree(t)
	issue := filepath.Join(dir, "ISSUE_DRAFT.md")
	require.NoError(t, os.WriteFile(issue, []byte("# Add DeepSeek\n\nThe platform registry lacks DeepSeek.\n"), 0o644))
	srv := llmtest.NewServer(t, solveScript())
	_, progress, err := runSolveCmd(t, srv, "--repo", dir, "--issue", issue, "--plan-only")
	require.NoError(t, err, progress)
	reqs := srv.Requests()
	require.GreaterOrEqual(t, len(reqs), 2)
	msgs := reqs[1].Messages // the request answering the search call
	result := msgs[len(msgs)-1].Content
	assert.Contains(t, result, "src/data/platform.ts")
	assert.False(t, strings.Contains(result, "ISSUE_DRAFT.md"), "search result lists the issue file:\n%s", result)
}
