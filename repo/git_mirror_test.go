package repo_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/repo/gittest"
)

// A mirror a crash left half made — `git init --bare` done, `remote add
// origin` not (HEAD but no origin), beside a half-built temporary one — is
// healed by the next sync with either backend instead of failing for good.
func TestIncompleteMirrorIsHealed(t *testing.T) {
	t.Parallel()
	for _, backend := range []repo.Backend{repo.BackendGoGit, repo.BackendCLI} {
		t.Run(string(backend), func(t *testing.T) {
			t.Parallel()
			srv := gittest.NewServer(t, gittest.WithToken(token))
			url := srv.Seed(t, "acme/app", seedFiles)
			dir := t.TempDir()
			c, err := repo.NewCache(dir, repo.CacheOptions{Backend: backend})
			require.NoError(t, err)
			_, err = c.Sync(t.Context(), url, token)
			require.NoError(t, err)
			mirrors, err := filepath.Glob(filepath.Join(dir, "mirrors", "*.git"))
			require.NoError(t, err)
			require.Len(t, mirrors, 1)
			m := mirrors[0]

			require.NoError(t, os.RemoveAll(m))
			out, err := exec.Command("git", "init", "--bare", "--quiet", m).CombinedOutput()
			require.NoError(t, err, "%s", out)
			require.NoError(t, os.MkdirAll(m+".init-12345/objects", 0o755))
			_, err = c.Sync(t.Context(), url, token)
			require.NoError(t, err, "the incomplete mirror is rebuilt")
			wt, err := c.Prepare(t.Context(), repo.PrepareOptions{URL: url, Token: token, Branch: "b", RunID: "r"})
			require.NoError(t, err)
			require.FileExists(t, filepath.Join(wt.Dir, "main.go"))
			require.NoDirExists(t, m+".init-12345", "half-built mirrors are removed")
			left, _ := filepath.Glob(filepath.Join(dir, "mirrors", "*.init-*"))
			require.Empty(t, left)
		})
	}
}
