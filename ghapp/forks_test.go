package ghapp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
)

const forkInst = 77

func forks(t *testing.T, acct ghtest.Account) (*ghtest.Server, *Forks, *sleeps) {
	t.Helper()
	srv, c, sl := setup(t, nil)
	srv.AddAccount(acct)
	return srv, &Forks{App: c.app, Account: acct.Login, Poll: time.Second}, sl
}

func cloneURL(name string) string { return "http://git.test/bots/" + name + ".git" }

// TestForkIntoOrganization: the fork is made as the organization's
// installation, with "organization", waited for while GitHub makes it,
// then found again without making anything.
func TestForkIntoOrganization(t *testing.T) {
	t.Parallel()
	srv, f, sl := forks(t, ghtest.Account{Login: "bots", Org: true, Installation: forkInst, CloneURL: cloneURL, ForkDelay: 2})
	ctx := t.Context()
	fork, err := f.Fork(ctx, owner, repo)
	require.NoError(t, err)
	assert.Equal(t, &Fork{Owner: "bots", Repo: repo, CloneURL: cloneURL(repo), InstallationID: forkInst}, fork)
	assert.Equal(t, owner+"/"+repo, srv.Parent("bots", repo))
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, sl.got(), "waited for GitHub to make the fork")
	assert.Equal(t, 1, srv.Calls("POST /repos/{owner}/{repo}/forks"))
	var body string
	for _, r := range srv.Requests() {
		if r.Op == "POST /repos/{owner}/{repo}/forks" {
			body = r.Body
		}
	}
	assert.JSONEq(t, `{"organization":"bots","default_branch_only":true}`, body)

	again, err := f.Fork(ctx, owner, repo)
	require.NoError(t, err)
	assert.Equal(t, fork, again)
	assert.Equal(t, 1, srv.Calls("POST /repos/{owner}/{repo}/forks"), "an existing fork is reused")
}

// TestForkIntoUser: a user account's installation forks without
// "organization".
func TestForkIntoUser(t *testing.T) {
	t.Parallel()
	srv, f, _ := forks(t, ghtest.Account{Login: "botuser", Installation: forkInst, CloneURL: cloneURL})
	fork, err := f.Fork(t.Context(), owner, repo)
	require.NoError(t, err)
	assert.Equal(t, "botuser", fork.Owner)
	assert.Equal(t, 1, srv.Calls("GET /users/{username}/installation"))
	for _, r := range srv.Requests() {
		if r.Op == "POST /repos/{owner}/{repo}/forks" {
			assert.JSONEq(t, `{"default_branch_only":true}`, r.Body)
		}
	}
}

// TestForkRefusals: the App not installed on the fork owner, a repository
// of that name that is not a fork, and a fork that never appears.
func TestForkRefusals(t *testing.T) {
	t.Parallel()
	srv, f, _ := forks(t, ghtest.Account{Login: "bots", Org: true})
	_, err := f.Fork(t.Context(), owner, repo)
	require.ErrorIs(t, err, ErrNotInstalled)
	assert.Contains(t, err.Error(), "account bots: install it there")
	assert.Zero(t, srv.Calls("POST /repos/{owner}/{repo}/forks"))

	srv, f, _ = forks(t, ghtest.Account{Login: "bots", Org: true, Installation: forkInst, CloneURL: cloneURL})
	srv.AddRepo(ghtest.Repo{Owner: "bots", Name: repo, Installation: forkInst})
	_, err = f.Fork(t.Context(), owner, repo)
	require.ErrorContains(t, err, "bots/hello exists but is not a fork of octo/hello")

	_, f, _ = forks(t, ghtest.Account{Login: "bots", Org: true, Installation: forkInst, CloneURL: cloneURL, ForkDelay: 100})
	f.Tries = 3
	_, err = f.Fork(t.Context(), owner, repo)
	require.ErrorIs(t, err, ErrNotFound)
	assert.Contains(t, err.Error(), "has not finished making the fork")

	_, f, _ = forks(t, ghtest.Account{Login: owner, Org: true, Installation: forkInst})
	_, err = f.Fork(t.Context(), owner, repo)
	require.ErrorContains(t, err, "cannot be its own fork")
}

// TestPullRequestFromFork: the PR's head is "forkowner:branch", and FindPR
// finds it by that head (not by the bare branch, which is the repository's).
func TestPullRequestFromFork(t *testing.T) {
	t.Parallel()
	srv, f, _ := forks(t, ghtest.Account{Login: "bots", Org: true, Installation: forkInst, CloneURL: cloneURL})
	c, err := f.App.Client(t.Context(), srv.Installation())
	require.NoError(t, err)
	ctx := t.Context()
	_, err = f.Fork(ctx, owner, repo)
	require.NoError(t, err)
	const head = "bots:issuesmith/issue-3"
	pr, err := c.CreatePR(ctx, owner, repo, NewPR{Title: "Fix", Head: head, Base: "main"})
	require.NoError(t, err)
	assert.Equal(t, "bots", pr.GetHead().GetRepo().GetOwner().GetLogin())
	again, err := c.CreatePR(ctx, owner, repo, NewPR{Title: "Fix", Head: head, Base: "main"})
	require.NoError(t, err)
	assert.Equal(t, pr.GetNumber(), again.GetNumber(), "a retry finds the PR GitHub refused to duplicate")
	found, err := c.FindPR(ctx, owner, repo, head)
	require.NoError(t, err)
	assert.Equal(t, pr.GetNumber(), found.GetNumber())
	_, err = c.FindPR(ctx, owner, repo, "issuesmith/issue-3")
	require.ErrorIs(t, err, ErrNotFound, "the repository's own branch of that name has no PR")
	prs := srv.PullRequests(owner, repo)
	require.Len(t, prs, 1)
	assert.Equal(t, "bots", prs[0].HeadOwner)
	assert.Equal(t, "issuesmith/issue-3", prs[0].Head)
}

// TestForkThroughOutage: GitHub's 5xx while looking for or making the fork
// is retried by the transport; the fork is made once.
func TestForkThroughOutage(t *testing.T) {
	t.Parallel()
	srv, f, _ := forks(t, ghtest.Account{Login: "bots", Org: true, Installation: forkInst, CloneURL: cloneURL})
	srv.Inject(ghtest.Fault{Op: "GET /orgs/{org}/installation", Status: 502, Body: `{"message":"Server Error"}`})
	srv.Inject(ghtest.Fault{Op: "POST /repos/{owner}/{repo}/forks", Status: 503, Body: `{"message":"Unavailable"}`})
	fork, err := f.Fork(t.Context(), owner, repo)
	require.NoError(t, err)
	assert.Equal(t, "bots", fork.Owner)
	assert.Equal(t, 2, srv.Calls("POST /repos/{owner}/{repo}/forks"), "one failed attempt, one retry")
	assert.Equal(t, owner+"/"+repo, srv.Parent("bots", repo))
}
