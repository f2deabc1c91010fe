package repo_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/repo/gittest"
	"github.com/stretchr/testify/require"
)

const token = "ghs_TESTtoken0123456789abcdefSECRET"

var (
	bot       = repo.Signature{Name: "issuesmith[bot]", Email: "123+issuesmith[bot]@users.noreply.github.com"}
	requester = repo.Signature{Name: "Alice", Email: repo.NoReplyEmail(42, "alice")}
)

// seedFiles is the repository every git test starts from.
var seedFiles = map[string]string{
	"README.md":      "# app\n",
	"main.go":        "package main\n\nfunc main() {}\n",
	"old.txt":        "to be deleted\n",
	".gitignore":     "*.log\n",
	"pkg/lib/lib.go": "package lib\n",
}

// setup starts a token-protected server with a seeded repository and a cache
// logging into a buffer.
func setup(t *testing.T, backend repo.Backend) (*gittest.Server, string, *repo.Cache, *bytes.Buffer) {
	t.Helper()
	srv := gittest.NewServer(t, gittest.WithToken(token))
	url := srv.Seed(t, "acme/app", seedFiles)
	var logs bytes.Buffer
	c, err := repo.NewCache(t.TempDir(), repo.CacheOptions{Backend: backend, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	return srv, url, c, &logs
}

func TestWorkflow(t *testing.T) {
	for _, backend := range []repo.Backend{repo.BackendGoGit, repo.BackendCLI} {
		t.Run(string(backend), func(t *testing.T) {
			t.Parallel()
			srv, url, c, logs := setup(t, backend)
			ctx := t.Context()
			branch := repo.BranchForIssue(4)

			wt, err := c.Prepare(ctx, repo.PrepareOptions{URL: url, Token: token, Base: "main", Branch: branch, RunID: "run-1"})
			require.NoError(t, err)
			require.Equal(t, backend, wt.Backend)
			require.True(t, wt.Sync.Cloned)
			require.Equal(t, srv.Head(t, "acme/app", "main"), wt.Start)
			require.Empty(t, wt.RemoteTip)
			ws, err := wt.Workspace()
			require.NoError(t, err)
			data, err := ws.ReadBytes("pkg/lib/lib.go")
			require.NoError(t, err)
			require.Equal(t, "package lib\n", string(data))
			ws.Close()

			write(t, wt.Dir, "main.go", "package main\n\nfunc main() { println(1) }\n")
			write(t, wt.Dir, "pkg/new/new.go", "package new\n")
			write(t, wt.Dir, "debug.log", "ignored\n")
			require.NoError(t, os.Remove(filepath.Join(wt.Dir, "old.txt")))
			h, err := wt.Commit(ctx, repo.CommitOptions{Message: "Fix #4: print\n", Author: bot,
				CoAuthors: []repo.Signature{requester, requester, bot}})
			require.NoError(t, err)
			require.NoError(t, wt.Push(ctx, token, repo.PushOptions{}))
			require.Equal(t, h, srv.Head(t, "acme/app", branch))
			require.Equal(t, h, wt.RemoteTip)

			want := map[string]string{
				"README.md": "# app\n", ".gitignore": "*.log\n", "pkg/lib/lib.go": "package lib\n",
				"main.go": "package main\n\nfunc main() { println(1) }\n", "pkg/new/new.go": "package new\n",
			}
			require.Equal(t, want, srv.Files(t, "acme/app", branch))
			log := srv.Log(t, "acme/app", branch)
			require.Len(t, log, 2)
			require.Equal(t, bot.String(), log[0].Author)
			require.Equal(t, bot.String(), log[0].Committer)
			require.Equal(t, "Fix #4: print\n\nCo-authored-by: Alice <42+alice@users.noreply.github.com>", log[0].Message)
			require.Equal(t, []string{wt.Start}, log[0].Parents)

			// A revise run reuses the remote branch and fetches instead of cloning.
			wt2, err := c.Prepare(ctx, repo.PrepareOptions{URL: url, Token: token, Base: "main", Branch: branch, RunID: "run-2", Reuse: true})
			require.NoError(t, err)
			require.False(t, wt2.Sync.Cloned)
			require.Equal(t, h, wt2.Start)
			write(t, wt2.Dir, "README.md", "# app\n\nrevised\n")
			h2, err := wt2.Commit(ctx, repo.CommitOptions{Message: "Address review", Author: bot})
			require.NoError(t, err)
			require.NoError(t, wt2.Push(ctx, token, repo.PushOptions{}))
			require.Equal(t, h2, srv.Head(t, "acme/app", branch))
			require.Equal(t, []string{h}, srv.Log(t, "acme/app", branch)[0].Parents)

			// The first run's checkout is untouched by the second.
			data, err = os.ReadFile(filepath.Join(wt.Dir, "README.md"))
			require.NoError(t, err)
			require.Equal(t, "# app\n", string(data))

			assertNoToken(t, c, wt, logs)
			require.Contains(t, logs.String(), "backend="+string(backend))
			require.NoError(t, wt.Remove())
			require.NoDirExists(t, wt.Dir)
		})
	}
}

// assertNoToken checks every file the cache wrote (configs, refs, logs of
// git) and the log output for the token.
func assertNoToken(t *testing.T, c *repo.Cache, wt *repo.Worktree, logs *bytes.Buffer) {
	t.Helper()
	root := cacheRoot(wt)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			require.False(t, bytes.Contains(data, []byte(token)), "token stored in %s", p)
		}
		return nil
	})
	require.NoError(t, err)
	cfg, err := os.ReadFile(filepath.Join(wt.GitDir(), "config"))
	require.NoError(t, err)
	require.Contains(t, string(cfg), "url = http://127.0.0.1")
	require.NotContains(t, string(cfg), "@127.0.0.1", "no credentials in the remote URL")
	require.NotContains(t, logs.String(), token)
	require.NotContains(t, logs.String(), "x-access-token:")
}

func TestEmptyChange(t *testing.T) {
	for _, backend := range []repo.Backend{repo.BackendGoGit, repo.BackendCLI} {
		t.Run(string(backend), func(t *testing.T) {
			t.Parallel()
			_, url, c, _ := setup(t, backend)
			wt, err := c.Prepare(t.Context(), repo.PrepareOptions{URL: url, Token: token, Branch: "b", RunID: "r"})
			require.NoError(t, err)
			write(t, wt.Dir, "trace.log", "ignored files are no change\n")
			_, err = wt.Commit(t.Context(), repo.CommitOptions{Message: "nothing", Author: bot})
			require.ErrorIs(t, err, repo.ErrEmptyChange)
			head, err := wt.Head()
			require.NoError(t, err)
			require.Equal(t, wt.Start, head, "no empty commit was made")
		})
	}
}

func TestRejectedToken(t *testing.T) {
	t.Parallel()
	srv, url, c, logs := setup(t, repo.BackendAuto)
	const wrong = "ghs_WRONGtoken_abcdefghijklmnop"
	for _, tok := range []string{wrong, ""} {
		_, err := c.Prepare(t.Context(), repo.PrepareOptions{URL: url, Token: tok, Branch: "b", RunID: "r" + tok[:min(3, len(tok))]})
		require.ErrorIs(t, err, repo.ErrAuth)
		require.NotContains(t, err.Error(), wrong)
	}
	require.Positive(t, srv.AuthFailures())
	require.NotContains(t, logs.String(), wrong)

	// A token that expires between fetch and push.
	wt, err := c.Prepare(t.Context(), repo.PrepareOptions{URL: url, Token: token, Branch: "b", RunID: "ok"})
	require.NoError(t, err)
	write(t, wt.Dir, "x.txt", "x\n")
	_, err = wt.Commit(t.Context(), repo.CommitOptions{Message: "x", Author: bot})
	require.NoError(t, err)
	err = wt.Push(t.Context(), wrong, repo.PushOptions{})
	require.ErrorIs(t, err, repo.ErrAuth)
	require.NotContains(t, err.Error(), wrong)
	require.Empty(t, srv.Head(t, "acme/app", "b"))

	_, err = c.Sync(t.Context(), "http://x-access-token:"+wrong+"@127.0.0.1/acme/app.git", "")
	require.Error(t, err)
	require.NotContains(t, err.Error(), wrong, "credentials in a URL are refused without echoing them")
}

func TestPushRefusals(t *testing.T) {
	for _, backend := range []repo.Backend{repo.BackendGoGit, repo.BackendCLI} {
		t.Run(string(backend), func(t *testing.T) {
			t.Parallel()
			srv, url, c, _ := setup(t, backend)
			ctx := t.Context()
			branch := repo.BranchForIssue(7)
			first := srv.Commit(t, "acme/app", branch, map[string]string{"a.txt": "from a human\n"}, "human work")

			// Branch moved: someone pushes after the run fetched.
			wt, err := c.Prepare(ctx, repo.PrepareOptions{URL: url, Token: token, Branch: branch, RunID: "moved", Reuse: true})
			require.NoError(t, err)
			require.Equal(t, first, wt.Start)
			moved := srv.Commit(t, "acme/app", branch, map[string]string{"b.txt": "more\n"}, "more human work")
			commitFile(t, wt, "c.txt")
			err = wt.Push(ctx, token, repo.PushOptions{Force: true})
			var pe *repo.PushError
			require.ErrorAs(t, err, &pe)
			require.ErrorIs(t, err, repo.ErrBranchMoved)
			require.Equal(t, first, pe.Expected)
			require.Equal(t, moved, pe.Actual)
			require.Equal(t, moved, srv.Head(t, "acme/app", branch), "a moved branch is never overwritten")

			// Non-fast-forward: a fresh run from main over an existing branch.
			wt2, err := c.Prepare(ctx, repo.PrepareOptions{URL: url, Token: token, Base: "main", Branch: branch, RunID: "nff"})
			require.NoError(t, err)
			require.Equal(t, moved, wt2.RemoteTip)
			h := commitFile(t, wt2, "d.txt")
			require.ErrorIs(t, wt2.Push(ctx, token, repo.PushOptions{}), repo.ErrNonFastForward)
			require.Equal(t, moved, srv.Head(t, "acme/app", branch))
			require.NoError(t, wt2.Push(ctx, token, repo.PushOptions{Force: true}))
			require.Equal(t, h, srv.Head(t, "acme/app", branch))

			// Rejected by the server.
			srv.RejectPushes(t, "acme/app", "protected branch: pushes are not allowed")
			commitFile(t, wt2, "e.txt")
			err = wt2.Push(ctx, token, repo.PushOptions{})
			require.ErrorIs(t, err, repo.ErrPushRejected)
			require.NotContains(t, err.Error(), "expected", "the lease held: no 'expected X, found X'")
			if backend == repo.BackendCLI {
				require.Contains(t, err.Error(), "[remote rejected]")
				require.Contains(t, err.Error(), "protected branch: pushes are not allowed", "the server's reason is shown")
			}
			require.Equal(t, h, srv.Head(t, "acme/app", branch))
		})
	}
}

func TestAutoFallsBackToCLI(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t, gittest.WithToken(token))
	url := srv.Seed(t, "acme/big", seedFiles)
	c, err := repo.NewCache(t.TempDir(), repo.CacheOptions{LargeRepoBytes: 1})
	require.NoError(t, err)
	st, err := c.Sync(t.Context(), url, token)
	require.NoError(t, err)
	require.Equal(t, repo.BackendGoGit, st.Backend, "an empty cache starts with go-git")
	require.Positive(t, st.PeakHeapBytes)
	srv.Commit(t, "acme/big", "main", map[string]string{"more.txt": "more\n"}, "more")
	st, err = c.Sync(t.Context(), url, token)
	require.NoError(t, err)
	require.Equal(t, repo.BackendCLI, st.Backend)
	require.Contains(t, st.Fallback, "over the 1 bytes go-git limit")
	require.Positive(t, st.MaxRSSBytes)
	wt, err := c.Prepare(t.Context(), repo.PrepareOptions{URL: url, Token: token, Branch: "b", RunID: "r"})
	require.NoError(t, err)
	require.Equal(t, repo.BackendCLI, wt.Backend)
	require.FileExists(t, filepath.Join(wt.Dir, "more.txt"))
}

func TestAutoAbandonsGoGitOverHeapBudget(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("d%02d/f%04d.txt", i%20, i)] = strings.Repeat(fmt.Sprintf("line %d\n", i), 100)
	}
	url := srv.Seed(t, "acme/heavy", files)
	c, err := repo.NewCache(t.TempDir(), repo.CacheOptions{MaxGoGitHeapBytes: 1})
	require.NoError(t, err)
	st, err := c.Sync(t.Context(), url, "")
	require.NoError(t, err)
	require.Equal(t, repo.BackendCLI, st.Backend)
	require.Contains(t, st.Fallback, "heap grew past 1 bytes, fetch abandoned")
	require.True(t, st.Cloned)
	wt, err := c.Prepare(t.Context(), repo.PrepareOptions{URL: url, Branch: "b", RunID: "r"})
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(wt.Dir, "d07/f0007.txt"))
}

func TestConcurrentRunsShareOneClone(t *testing.T) {
	t.Parallel()
	_, url, c, _ := setup(t, repo.BackendAuto)
	var wg sync.WaitGroup
	wts := make([]*repo.Worktree, 3)
	errs := make([]error, 3)
	for i := range wts {
		wg.Go(func() {
			wts[i], errs[i] = c.Prepare(t.Context(), repo.PrepareOptions{URL: url, Token: token,
				Branch: repo.BranchForIssue(i), RunID: fmt.Sprintf("run-%d", i)})
		})
	}
	wg.Wait()
	cloned := 0
	for i, wt := range wts {
		require.NoError(t, errs[i])
		if wt.Sync.Cloned {
			cloned++
		}
		write(t, wt.Dir, "main.go", fmt.Sprintf("package main // run %d\n", i))
	}
	require.Equal(t, 1, cloned, "one clone, then fetches")
	for i, wt := range wts {
		data, err := os.ReadFile(filepath.Join(wt.Dir, "main.go"))
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("package main // run %d\n", i), string(data), "checkouts are not shared")
	}
}

func TestManyPacksAreCompacted(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	url := srv.Seed(t, "acme/app", seedFiles)
	c, err := repo.NewCache(t.TempDir(), repo.CacheOptions{Backend: repo.BackendGoGit, MaxPacks: 2})
	require.NoError(t, err)
	wt, err := c.Prepare(t.Context(), repo.PrepareOptions{URL: url, Branch: "b", RunID: "early"})
	require.NoError(t, err)
	for i := range 3 {
		srv.Commit(t, "acme/app", "main", map[string]string{"n.txt": fmt.Sprint(i)}, "more")
		_, err := c.Sync(t.Context(), url, "")
		require.NoError(t, err)
	}
	packs, err := filepath.Glob(filepath.Join(cacheRoot(wt), "mirrors", "*", "objects", "pack", "*.pack"))
	require.NoError(t, err)
	require.LessOrEqual(t, len(packs), 2, "go-git's one pack per fetch were repacked")
	// The run made before the repack still has every object it needs.
	commitFile(t, wt, "late.txt")
	late, err := c.Prepare(t.Context(), repo.PrepareOptions{URL: url, Branch: "b2", RunID: "late"})
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(late.Dir, "n.txt"))
}

func TestPrepareRefusals(t *testing.T) {
	t.Parallel()
	_, url, c, _ := setup(t, repo.BackendAuto)
	ctx := t.Context()
	_, err := c.Prepare(ctx, repo.PrepareOptions{URL: url, Token: token, Base: "nope", Branch: "b", RunID: "r1"})
	require.ErrorIs(t, err, repo.ErrRefNotFound)
	for _, id := range []string{"", "../x", "a/b", ".hidden"} {
		_, err = c.Prepare(ctx, repo.PrepareOptions{URL: url, Branch: "b", RunID: id})
		require.Error(t, err, id)
	}
	for _, b := range []string{"", "-rf", "a..b", "a b"} {
		_, err = c.Prepare(ctx, repo.PrepareOptions{URL: url, Branch: b, RunID: "r2"})
		require.Error(t, err, b)
	}
	wt, err := c.Prepare(ctx, repo.PrepareOptions{URL: url, Token: token, Branch: "b", RunID: "r3"})
	require.NoError(t, err)
	_, err = c.Prepare(ctx, repo.PrepareOptions{URL: url, Token: token, Branch: "b", RunID: "r3"})
	require.Error(t, err, "a live run id is refused")
	require.FileExists(t, filepath.Join(wt.Dir, "main.go"), "and the live worktree is left alone")
	require.NoError(t, wt.Remove())
	_, err = c.Prepare(ctx, repo.PrepareOptions{URL: url, Token: token, Branch: "b", RunID: "r3"})
	require.NoError(t, err, "a removed run's id is free again")

	// A process restarted after a crash finds the old worktree and replaces it.
	write(t, wt.Dir, "leftover.txt", "from the dead process\n")
	c2, err := repo.NewCache(cacheRoot(wt), repo.CacheOptions{})
	require.NoError(t, err)
	wt2, err := c2.Prepare(ctx, repo.PrepareOptions{URL: url, Token: token, Branch: "b", RunID: "r3"})
	require.NoError(t, err)
	require.False(t, wt2.Sync.Cloned, "the restarted process fetches into the existing clone")
	require.NoFileExists(t, filepath.Join(wt2.Dir, "leftover.txt"))
}

// cacheRoot is the folder of the cache a worktree came from
// (<root>/runs/<id>/tree).
func cacheRoot(wt *repo.Worktree) string { return filepath.Dir(filepath.Dir(filepath.Dir(wt.Dir))) }

// write writes a file under dir.
func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
	require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
}

// commitFile adds a file and commits it, returning the commit.
func commitFile(t *testing.T, wt *repo.Worktree, name string) string {
	t.Helper()
	write(t, wt.Dir, name, name+"\n")
	h, err := wt.Commit(t.Context(), repo.CommitOptions{Message: "add " + name, Author: bot, When: time.Unix(1e9, 0)})
	require.NoError(t, err)
	return h
}

// TestCommitRefusesBlockedPaths: a change at a blocked path, however it got
// into the worktree (here written directly, as a check command could), fails
// the commit and commits nothing; deleting a blocked file is refused too.
func TestCommitRefusesBlockedPaths(t *testing.T) {
	blocked := func(p string) bool { return strings.HasPrefix(p, ".github/workflows/") }
	for _, backend := range []repo.Backend{repo.BackendGoGit, repo.BackendCLI} {
		t.Run(string(backend), func(t *testing.T) {
			t.Parallel()
			srv := gittest.NewServer(t, gittest.WithToken(token))
			url := srv.Seed(t, "acme/app", map[string]string{"main.go": "package main\n", ".github/workflows/ci.yml": "on: push\n"})
			c, err := repo.NewCache(t.TempDir(), repo.CacheOptions{Backend: backend})
			require.NoError(t, err)
			wt, err := c.Prepare(t.Context(), repo.PrepareOptions{URL: url, Token: token, Branch: "b", RunID: "r"})
			require.NoError(t, err)
			write(t, wt.Dir, "main.go", "package main\n\nfunc main() {}\n")
			write(t, wt.Dir, ".github/workflows/evil.yml", "on: push\n")
			_, err = wt.Commit(t.Context(), repo.CommitOptions{Message: "x", Author: bot, Blocked: blocked})
			require.ErrorIs(t, err, repo.ErrBlockedPath)
			require.Contains(t, err.Error(), ".github/workflows/evil.yml")
			head, err := wt.Head()
			require.NoError(t, err)
			require.Equal(t, wt.Start, head, "nothing was committed")

			require.NoError(t, os.Remove(filepath.Join(wt.Dir, ".github/workflows/evil.yml")))
			require.NoError(t, os.Remove(filepath.Join(wt.Dir, ".github/workflows/ci.yml")))
			_, err = wt.Commit(t.Context(), repo.CommitOptions{Message: "x", Author: bot, Blocked: blocked})
			require.ErrorIs(t, err, repo.ErrBlockedPath)
			require.Contains(t, err.Error(), ".github/workflows/ci.yml")

			write(t, wt.Dir, ".github/workflows/ci.yml", "on: push\n")
			_, err = wt.Commit(t.Context(), repo.CommitOptions{Message: "x", Author: bot, Blocked: blocked})
			require.NoError(t, err, "the allowed change alone commits")
		})
	}
}
