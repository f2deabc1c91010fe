package repo_test

import (
	"fmt"
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

// A mirror a process killed while git wrote its objects or refs — a pack
// or its index cut short, a ref file left empty — syncs without error and
// then fails every run ("base main: ref not found", or "ref file is empty"
// on every fetch): fetching again never repairs it, because the fetch
// believes it has the objects its refs name (go-git; git's own fetch
// repairs missing objects but not an empty ref file). The sync finds it
// unreadable, fetches it again from scratch, and says so.
func TestUnreadableMirrorIsFetchedAgain(t *testing.T) {
	t.Parallel()
	cut := func(glob string) func(m string) error {
		return func(m string) error {
			files, err := filepath.Glob(filepath.Join(m, "objects", "pack", glob))
			if err != nil || len(files) == 0 {
				return fmt.Errorf("no %s: %v", glob, err)
			}
			for _, f := range files {
				if err := os.Truncate(f, 40); err != nil {
					return err
				}
			}
			return nil
		}
	}
	damage := map[string]func(m string) error{
		"pack cut short":  cut("*.pack"),
		"index cut short": cut("*.idx"),
		"ref file empty": func(m string) error {
			return os.WriteFile(filepath.Join(m, "refs", "remotes", "origin", "main"), nil, 0o644)
		},
	}
	for _, backend := range []repo.Backend{repo.BackendGoGit, repo.BackendCLI} {
		for name, breakIt := range damage {
			t.Run(string(backend)+"/"+name, func(t *testing.T) {
				t.Parallel()
				srv := gittest.NewServer(t, gittest.WithToken(token))
				url := srv.Seed(t, "acme/app", seedFiles)
				dir := t.TempDir()
				c, err := repo.NewCache(dir, repo.CacheOptions{Backend: backend})
				require.NoError(t, err)
				st, err := c.Sync(t.Context(), url, token)
				require.NoError(t, err)
				require.Empty(t, st.Rebuilt, "a sound mirror is kept")
				mirrors, err := filepath.Glob(filepath.Join(dir, "mirrors", "*.git"))
				require.NoError(t, err)
				require.Len(t, mirrors, 1)
				if backend == repo.BackendCLI { // the CLI keeps a small fetch's objects loose and may pack refs
					for _, args := range [][]string{{"repack", "-a", "-d", "-q"}, {"update-ref", "refs/remotes/origin/main", "refs/remotes/origin/main"}} {
						out, err := exec.Command("git", append([]string{"-C", mirrors[0]}, args...)...).CombinedOutput()
						require.NoError(t, err, "%s", out)
					}
				}
				require.NoError(t, breakIt(mirrors[0]))

				// A new process (a new Cache) on the damaged mirror.
				c, err = repo.NewCache(dir, repo.CacheOptions{Backend: backend})
				require.NoError(t, err)
				wt, err := c.Prepare(t.Context(), repo.PrepareOptions{URL: url, Token: token, Branch: "b", RunID: "r", Base: "main"})
				require.NoError(t, err)
				if backend == repo.BackendGoGit || name == "ref file empty" {
					require.NotEmpty(t, wt.Sync.Rebuilt, "the mirror was fetched again")
				} // else git's own fetch notices the missing objects and fetches them
				require.Equal(t, srv.Head(t, "acme/app", "main"), wt.Start)
				require.FileExists(t, filepath.Join(wt.Dir, "main.go"))
			})
		}
	}
}
