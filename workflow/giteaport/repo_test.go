package giteaport_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/gitea/giteatest"
	"github.com/issuesmith/issuesmith/workflow"
)

func TestRepositoryAndFileContent(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := t.Context()
	f.srv.AddRepo(giteatest.Repo{Owner: owner, Name: "trunked", DefaultBranch: "trunk",
		CloneURL: "http://git.invalid/octo/trunked.git"})
	f.srv.SetFile(owner, repo, "", ".gitea/issuesmith.yml", "version: 1\n")
	f.srv.SetFile(owner, repo, branch, ".gitea/issuesmith.yml", "version: 2\n")

	r, err := f.g.Repository(ctx, owner, repo)
	require.NoError(t, err)
	assert.Equal(t, workflow.Repository{DefaultBranch: "main", CloneURL: "http://git.invalid/octo/hello.git"}, *r)
	r, err = f.g.Repository(ctx, owner, "trunked")
	require.NoError(t, err)
	assert.Equal(t, workflow.Repository{DefaultBranch: "trunk", CloneURL: "http://git.invalid/octo/trunked.git"}, *r)
	_, err = f.g.Repository(ctx, owner, "nope")
	require.ErrorIs(t, err, workflow.ErrNotFound)

	b, err := f.g.FileContent(ctx, owner, repo, ".gitea/issuesmith.yml", "")
	require.NoError(t, err)
	assert.Equal(t, "version: 1\n", string(b))
	b, err = f.g.FileContent(ctx, owner, repo, ".gitea/issuesmith.yml", branch)
	require.NoError(t, err)
	assert.Equal(t, "version: 2\n", string(b))
	_, err = f.g.FileContent(ctx, owner, repo, ".github/issuesmith.yml", "")
	require.ErrorIs(t, err, workflow.ErrNotFound, "a missing file is ErrNotFound (the repository's defaults apply)")
}

func TestGetIssue(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	n := f.srv.AddIssue(owner, repo, giteatest.Issue{Title: "Add a flag", Body: "please", User: "alice",
		Labels: []string{"issuesmith", "bug"}})
	is, err := f.g.GetIssue(t.Context(), owner, repo, n)
	require.NoError(t, err)
	assert.Equal(t, workflow.Issue{Title: "Add a flag", Body: "please", Labels: []string{"issuesmith", "bug"}}, *is)

	bare := f.srv.AddIssue(owner, repo, giteatest.Issue{Title: "no labels", User: "alice"})
	is, err = f.g.GetIssue(t.Context(), owner, repo, bare)
	require.NoError(t, err)
	assert.Empty(t, is.Labels)

	_, err = f.g.GetIssue(t.Context(), owner, repo, 99)
	require.ErrorIs(t, err, workflow.ErrNotFound)
}

// A reaction is the bot's; reacting again is no error and adds none.
func TestReactIssue(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	n := f.srv.AddIssue(owner, repo, giteatest.Issue{Title: "t", User: "alice"})
	require.NoError(t, f.g.ReactIssue(t.Context(), owner, repo, n, "eyes"))
	require.NoError(t, f.g.ReactIssue(t.Context(), owner, repo, n, "eyes"))
	require.NoError(t, f.g.ReactIssue(t.Context(), owner, repo, n, "rocket"))
	assert.Equal(t, []string{"issuesmith:eyes", "issuesmith:rocket"}, f.srv.Reactions(owner, repo, n))
}

// RemoveLabel removes the label by its name (Gitea removes by id), in any
// case; a label not on the issue is ErrNotFound and nothing is removed.
func TestRemoveLabelByName(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := t.Context()
	n := f.srv.AddIssue(owner, repo, giteatest.Issue{Title: "t", User: "alice", Labels: []string{"bug", "issuesmith"}})
	other := f.srv.AddIssue(owner, repo, giteatest.Issue{Title: "u", User: "alice", Labels: []string{"docs"}})

	require.NoError(t, f.g.RemoveLabel(ctx, owner, repo, n, "IssueSmith"))
	assert.Equal(t, []string{"bug"}, f.srv.Labels(owner, repo, n))

	// "docs" exists in the repository but is not on issue n.
	err := f.g.RemoveLabel(ctx, owner, repo, n, "docs")
	require.ErrorIs(t, err, workflow.ErrNotFound)
	assert.Contains(t, err.Error(), `label "docs" on octo/hello#1`)
	require.ErrorIs(t, f.g.RemoveLabel(ctx, owner, repo, n, "issuesmith"), workflow.ErrNotFound)
	assert.Equal(t, 1, f.srv.Calls(opRemoveLabel), "only the label found is removed")
	assert.Equal(t, []string{"bug"}, f.srv.Labels(owner, repo, n))
	assert.Equal(t, []string{"docs"}, f.srv.Labels(owner, repo, other))

	require.ErrorIs(t, f.g.RemoveLabel(ctx, owner, repo, 99, "bug"), workflow.ErrNotFound)
}

// CanWrite: owner, admin and write may write; read, a user who is no
// collaborator and one Gitea does not know may not, without an error.
func TestCanWrite(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	f.srv.AddRepo(giteatest.Repo{Owner: owner, Name: "secret", Private: true})
	f.srv.SetPermission(owner, "secret", bot, "admin")
	for r, perms := range map[string]map[string]string{
		repo:     {"writer": "write", "reader": "read", "admin": "admin"},
		"secret": {"writer": "write", "reader": "read"},
	} {
		for user, perm := range perms {
			f.srv.SetPermission(owner, r, user, perm)
		}
	}
	f.srv.AddUser("siteadmin", true)
	f.srv.AddUser("stranger", false)

	for _, tc := range []struct {
		repo, user string
		want       bool
	}{
		{repo, owner, true},
		{repo, "admin", true},
		{repo, "siteadmin", true},
		{repo, "writer", true},
		{repo, "Writer", true},
		{repo, bot, true},
		{repo, "reader", false},
		{repo, "stranger", false}, // no collaborator of a public repository: read
		{repo, "ghost", false},    // a user Gitea does not know: 404
		{"secret", "writer", true},
		{"secret", "reader", false},
		{"secret", "stranger", false}, // no collaborator of a private one: none
	} {
		ok, err := f.g.CanWrite(t.Context(), owner, tc.repo, tc.user)
		require.NoError(t, err, "%s on %s", tc.user, tc.repo)
		assert.Equal(t, tc.want, ok, "%s on %s", tc.user, tc.repo)
	}
}

// Gitea answers the permission of others only to a repository
// administrator: a bot user that is none gets an error saying to make it
// one, which is workflow.ErrNoAccess (never a silent "may not write").
func TestCanWriteNeedsARepositoryAdministrator(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	f.srv.SetPermission(owner, repo, "helper", "write")
	f.srv.SetPermission(owner, repo, "alice", "write")
	g := client(t, f.srv, f.srv.AddToken("helper", "write:issue", "write:repository"), f.waits, nil)

	ok, err := g.CanWrite(t.Context(), owner, repo, "alice")
	require.ErrorIs(t, err, workflow.ErrNoAccess)
	assert.False(t, ok)
	assert.Contains(t, err.Error(), "make the bot's user one")
	assert.Contains(t, err.Error(), "Gitea answers only a repository administrator")
	assert.Contains(t, err.Error(), "403")
	assert.NotErrorIs(t, err, workflow.ErrNotFound)

	// Its own permission Gitea tells it.
	ok, err = g.CanWrite(t.Context(), owner, repo, "helper")
	require.NoError(t, err)
	assert.True(t, ok)
}
