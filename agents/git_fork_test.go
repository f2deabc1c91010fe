package agents

import (
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/repo/gittest"
	"github.com/issuesmith/issuesmith/workflow"
)

// TestCheckoutOnFork: with RepoRef.Fork the serve adapter reads the base
// with the repository's installation token and the branch with the fork
// owner's, and pushes with the fork owner's: the git server takes each
// token for its own installation's repositories only. An installation that
// cannot reach the fork gets an error saying what to change.
func TestCheckoutOnFork(t *testing.T) {
	t.Parallel()
	const forkInst = 77
	gh := ghtest.New(t, ghtest.Options{})
	var noFork atomic.Bool
	srv := gittest.NewServer(t, gittest.WithRepoTokenCheck(func(name, tok string) bool {
		owner, rp, _ := strings.Cut(name, "/")
		return (owner != "bots" || !noFork.Load()) && gh.ValidToken(owner, rp, tok)
	}))
	url := srv.Seed(t, "acme/app", map[string]string{"main.go": "package main\n"})
	forkURL := srv.Fork(t, "acme/app", "bots/app")
	gh.AddRepo(ghtest.Repo{Owner: "acme", Name: "app", CloneURL: url})
	gh.AddRepo(ghtest.Repo{Owner: "bots", Name: "app", CloneURL: forkURL, Installation: forkInst})
	gh.AddAccount(ghtest.Account{Login: "bots", Org: true, Installation: forkInst})
	app, err := ghapp.NewApp(ghapp.AppConfig{AppID: gh.AppID(), PrivateKey: gh.PrivateKey(), BaseURL: gh.URL(),
		BotLogin: gh.BotLogin(), WriteInterval: -1, Backoff: time.Millisecond})
	require.NoError(t, err)
	cache, err := repo.NewCache(t.TempDir(), repo.CacheOptions{})
	require.NoError(t, err)
	g := NewGit(cache, AppCredentials{App: app}, repo.Signature{Name: "bot", Email: "bot@example.com"})
	ref := workflow.RepoRef{InstallationID: gh.Installation(), Owner: "acme", Repo: "app", Base: "main", CloneURL: url, Job: "t",
		Blocked: []string{}, Fork: &workflow.Fork{Owner: "bots", Repo: "app", CloneURL: forkURL, InstallationID: forkInst}}
	const branch = "issuesmith/issue-1"

	wt, err := g.Checkout(t.Context(), ref, branch)
	require.NoError(t, err)
	ws := wt.Workspace()
	require.NoError(t, ws.Root().WriteFile("main.go", []byte("package main\n\nfunc main() {}\n"), 0o644))
	sha, changed, err := wt.Commit(t.Context(), "change")
	require.NoError(t, err)
	require.True(t, changed)
	require.NoError(t, wt.Push(t.Context()))
	require.NoError(t, wt.Close())
	_, err = ws.ReadBytes("main.go")
	require.Error(t, err, "Close closed the worktree's workspace")
	_, err = os.Stat(ws.Dir())
	require.ErrorIs(t, err, os.ErrNotExist, "and removed the checkout")
	require.Equal(t, sha, srv.Head(t, "bots/app", branch))
	require.Empty(t, srv.Head(t, "acme/app", branch))

	noFork.Store(true) // the installation's repository selection leaves the fork out
	_, err = g.Checkout(t.Context(), ref, branch)
	require.ErrorIs(t, err, repo.ErrAuth)
	require.ErrorContains(t, err, "installation on bots cannot reach its fork bots/app: give it access to all repositories")
	for _, tok := range gh.IssuedTokens() {
		require.NotContains(t, err.Error(), tok)
	}
}
