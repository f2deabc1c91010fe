package agents

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/repo/gittest"
	"github.com/issuesmith/issuesmith/workflow"
)

// TestCommitRefusesBlockedPaths: the serve adapter's Commit passes the
// repository's blocked globs to git, so a workflow file written outside the
// edit engine (a check command, a generator) fails the commit with
// workflow.ErrBlockedChange and nothing is committed.
func TestCommitRefusesBlockedPaths(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	url := srv.Seed(t, "acme/app", map[string]string{"main.go": "package main\n"})
	cache, err := repo.NewCache(t.TempDir(), repo.CacheOptions{})
	require.NoError(t, err)
	wt, err := cache.Prepare(t.Context(), repo.PrepareOptions{URL: url, Branch: "issuesmith/issue-1", RunID: "r"})
	require.NoError(t, err)
	w := &worktree{wt: wt, g: &Git{author: repo.Signature{Name: "bot", Email: "bot@example.com"}},
		blocked: coder.Globs(coder.DefaultBlocked)}

	require.NoError(t, os.MkdirAll(filepath.Join(wt.Dir, ".github/workflows"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(wt.Dir, ".github/workflows/x.yml"), []byte("on: push\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(wt.Dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644))
	_, changed, err := w.Commit(t.Context(), "change")
	require.ErrorIs(t, err, workflow.ErrBlockedChange)
	require.False(t, changed)
	head, err := wt.Head()
	require.NoError(t, err)
	require.Equal(t, wt.Start, head, "nothing was committed")
}
