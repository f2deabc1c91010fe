package repo_test

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/repo/gittest"
)

// TestUseFork: the base comes from the repository, the branch goes to the
// fork with the fork's token (the repository's token is refused there, and
// the fork's on the repository), and a second run finds the branch on the
// fork and continues it.
func TestUseFork(t *testing.T) {
	for _, backend := range []repo.Backend{repo.BackendGoGit, repo.BackendCLI} {
		t.Run(string(backend), func(t *testing.T) {
			t.Parallel()
			const forkToken = "ghs_FORKtoken0123456789abcdefSECRET"
			srv := gittest.NewServer(t, gittest.WithRepoTokenCheck(func(name, tok string) bool {
				return name == "acme/app" && tok == token || name == "bots/app" && tok == forkToken
			}))
			url := srv.Seed(t, "acme/app", seedFiles)
			forkURL := srv.Fork(t, "acme/app", "bots/app")
			// The repository moves on after the fork was made: the base is
			// the repository's, not the fork's stale copy.
			base := srv.Commit(t, "acme/app", "main", map[string]string{"README.md": "# app v2\n"}, "v2")
			// A branch of the same name on the repository is not the run's.
			srv.Commit(t, "acme/app", "b", map[string]string{"other.txt": "not ours\n"}, "someone's b")
			var logs bytes.Buffer
			c, err := repo.NewCache(t.TempDir(), repo.CacheOptions{Backend: backend, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			require.NoError(t, err)
			ctx := t.Context()

			wt, err := c.Prepare(ctx, repo.PrepareOptions{URL: url, Token: token, Base: "main", Branch: "b", RunID: "r1"})
			require.NoError(t, err)
			require.NoError(t, wt.UseFork(ctx, forkURL, forkToken, true))
			require.Equal(t, base, wt.Start)
			require.Empty(t, wt.RemoteTip, "the fork has no branch b yet")
			first := commitFile(t, wt, "one.txt")
			err = wt.Push(ctx, token, repo.PushOptions{})
			require.ErrorIs(t, err, repo.ErrAuth, "the repository's token does not push to the fork")
			require.NoError(t, wt.Push(ctx, forkToken, repo.PushOptions{}))
			require.Equal(t, first, srv.Head(t, "bots/app", "b"))
			require.NotEqual(t, first, srv.Head(t, "acme/app", "b"), "nothing pushed to the repository")
			assertNoToken(t, c, wt, &logs)
			require.NoError(t, wt.Remove())

			// A resumed run (or a revise) continues the fork's branch.
			wt, err = c.Prepare(ctx, repo.PrepareOptions{URL: url, Token: token, Base: "main", Branch: "b", RunID: "r2"})
			require.NoError(t, err)
			require.NoError(t, wt.UseFork(ctx, forkURL, forkToken, true))
			require.Equal(t, first, wt.Start)
			require.Equal(t, first, wt.RemoteTip)
			second := commitFile(t, wt, "two.txt")
			require.NoError(t, wt.Push(ctx, forkToken, repo.PushOptions{}))
			log := srv.Log(t, "bots/app", "b")
			require.Equal(t, second, log[0].Hash)
			require.Equal(t, []string{first}, log[0].Parents)
			require.NoError(t, wt.Remove())

			// A wrong fork token is an auth error that does not show it.
			wt, err = c.Prepare(ctx, repo.PrepareOptions{URL: url, Token: token, Base: "main", Branch: "b", RunID: "r3"})
			require.NoError(t, err)
			err = wt.UseFork(ctx, forkURL, token, true)
			require.ErrorIs(t, err, repo.ErrAuth)
			require.NotContains(t, err.Error(), token)
		})
	}
}
