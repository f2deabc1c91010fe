package summaries_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/summaries"
)

// git runs git in dir with a fixed identity and fails the test on error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return string(out)
}

// TestRefreshAfterCommits follows a real git checkout through two commits:
// the blob hashes match git's, a commit that changes one file makes the
// refresh read that file only, and a pull that changes nothing reads none.
func TestRefreshAfterCommits(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := writeTree(t, shopTree)
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "first")
	src := open(t, dir)
	idx, err := summaries.Build(t.Context(), src, summaries.Options{})
	require.NoError(t, err)
	blob := git(t, dir, "rev-parse", "HEAD:cart/cart.go")
	assert.Equal(t, blob[:40], idx.File("cart/cart.go").Blob)

	// another clone pushes a commit; this checkout pulls it
	other := t.TempDir()
	git(t, other, "clone", "-q", dir, ".")
	require.NoError(t, os.WriteFile(filepath.Join(other, "price/price.go"),
		[]byte("package price\n\n// Discount applies the seasonal discount rate.\nfunc Discount(n int) int { return n * 8 / 10 }\n"), 0o644))
	git(t, other, "commit", "-q", "-am", "seasonal discount")
	git(t, dir, "pull", "-q", other, "main")

	src.reads.Store(0)
	st, err := idx.Refresh(t.Context(), src)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Parsed)
	assert.Equal(t, int64(1), src.reads.Load())
	blob = git(t, dir, "rev-parse", "HEAD:price/price.go")
	assert.Equal(t, blob[:40], idx.File("price/price.go").Blob)
	hits := idx.Search("seasonal discount", 1)
	require.Len(t, hits, 1)
	assert.Equal(t, "price/price.go", hits[0].Path)

	git(t, dir, "pull", "-q", other, "main")
	src.reads.Store(0)
	st, err = idx.Refresh(t.Context(), src)
	require.NoError(t, err)
	assert.Zero(t, st.Parsed)
	assert.Zero(t, src.reads.Load())
}
