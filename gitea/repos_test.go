package gitea_test

import (
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/gitea"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStatuses(t *testing.T) {
	t.Parallel()
	srv, c, _, _ := setup(t, func(o *gitea.Options) { o.PageSize = 2 })
	srv.SetBranch(owner, repo, "feature/x", headSHA)

	cs, err := c.CombinedStatus(t.Context(), owner, repo, "feature/x")
	require.NoError(t, err)
	assert.Equal(t, "pending", cs.State, "no status is pending")
	assert.Equal(t, headSHA, cs.SHA)
	assert.Empty(t, cs.Statuses)

	for _, s := range []gitea.NewStatus{
		{State: "success", Context: "build", TargetURL: "http://ci/1", Description: "ok"},
		{State: "pending", Context: "lint"},
		{State: "success", Context: "test"},
	} {
		_, err := c.CreateStatus(t.Context(), owner, repo, headSHA, s)
		require.NoError(t, err)
	}
	made, err := c.CreateStatus(t.Context(), owner, repo, headSHA, gitea.NewStatus{State: "failure", Context: "lint"})
	require.NoError(t, err)
	assert.Equal(t, "failure", made.State)
	assert.Equal(t, "issuesmith", made.Creator.Login)

	cs, err = c.CombinedStatus(t.Context(), owner, repo, headSHA)
	require.NoError(t, err)
	assert.Equal(t, "failure", cs.State, "combined over every page")
	require.Len(t, cs.Statuses, 3, "the latest per context")
	assert.Equal(t, "lint", cs.Statuses[0].Context)
	assert.Equal(t, 3, srv.Calls("GET /repos/{owner}/{repo}/commits/{ref}/status"), "one page, then two")
	_, err = c.CombinedStatus(t.Context(), owner, repo, "no-such-branch")
	require.ErrorIs(t, err, gitea.ErrNotFound)
	assert.Len(t, srv.Statuses(owner, repo, headSHA), 4)
}

// Gitea answers the permission of another user only to admins: the bot
// must be a repository admin.
func TestPermission(t *testing.T) {
	t.Parallel()
	srv, c, _, _ := setup(t, nil)
	srv.SetPermission(owner, repo, "writer", "write")
	srv.AddUser("stranger", false)
	for user, want := range map[string]string{"writer": "write", "stranger": "read", "octo": "owner", "issuesmith": "admin"} {
		got, err := c.Permission(t.Context(), owner, repo, user)
		require.NoError(t, err)
		assert.Equal(t, want, got, user)
	}
	_, err := c.Permission(t.Context(), owner, repo, "nobody")
	require.ErrorIs(t, err, gitea.ErrNotFound)

	srv.SetPermission(owner, repo, "issuesmith", "write")
	_, err = c.Permission(t.Context(), owner, repo, "writer")
	require.ErrorIs(t, err, gitea.ErrForbidden)
	assert.Contains(t, err.Error(), "repo admins can query all repo permissions")
	self, err := c.Permission(t.Context(), owner, repo, "issuesmith")
	require.NoError(t, err)
	assert.Equal(t, "write", self)
}

func TestHooks(t *testing.T) {
	t.Parallel()
	srv, c, _, _ := setup(t, func(o *gitea.Options) { o.PageSize = 1 })
	for _, u := range []string{"http://bot/webhook", "http://other/hook"} {
		_, err := c.CreateHook(t.Context(), owner, repo, gitea.NewHook{Type: "gitea", Active: true, BranchFilter: "*",
			Config: map[string]string{"url": u, "content_type": "json", "secret": "s3cret"},
			Events: []string{"issues", "issue_comment", "pull_request", "pull_request_review", "status"}})
		require.NoError(t, err)
	}
	hooks, err := c.Hooks(t.Context(), owner, repo)
	require.NoError(t, err)
	require.Len(t, hooks, 2)
	assert.Equal(t, "http://bot/webhook", hooks[0].Config["url"])
	assert.Empty(t, hooks[0].Config["secret"], "Gitea never sends the secret back")
	assert.Equal(t, "s3cret", srv.Hooks(owner, repo)[0].Config["secret"])

	srv.SetPermission(owner, repo, "issuesmith", "write")
	_, err = c.Hooks(t.Context(), owner, repo)
	require.ErrorIs(t, err, gitea.ErrForbidden)
}

func TestJobLog(t *testing.T) {
	t.Parallel()
	srv, c, _, _ := setup(t, func(o *gitea.Options) { o.MaxBody = 10 })
	srv.SetJobLog(owner, repo, 7, "short")
	srv.SetJobLog(owner, repo, 8, strings.Repeat("x", 100)+"the error")
	log, err := c.JobLog(t.Context(), owner, repo, 7)
	require.NoError(t, err)
	assert.Equal(t, "short", log)
	log, err = c.JobLog(t.Context(), owner, repo, 8)
	require.NoError(t, err)
	assert.Equal(t, "xthe error", log, "the tail")
	_, err = c.JobLog(t.Context(), owner, repo, 9)
	require.ErrorIs(t, err, gitea.ErrNotFound)
}
