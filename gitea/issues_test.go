package gitea_test

import (
	"net/http"
	"testing"

	"github.com/issuesmith/issuesmith/gitea"
	"github.com/issuesmith/issuesmith/gitea/giteatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIssueCommentsLabelsReactions(t *testing.T) {
	t.Parallel()
	srv, c, _, _ := setup(t, nil)
	n := srv.AddIssue(owner, repo, giteatest.Issue{Title: "Add a flag", Body: "please", User: "alice",
		Labels: []string{"issuesmith", "bug"}})
	first := srv.AddComment(owner, repo, n, "alice", "more detail")

	is, err := c.Issue(t.Context(), owner, repo, n)
	require.NoError(t, err)
	assert.Equal(t, n, is.Number)
	assert.Equal(t, "Add a flag", is.Title)
	assert.Equal(t, "please", is.Body)
	assert.Equal(t, "open", is.State)
	assert.Equal(t, "alice", is.User.Login)
	assert.Nil(t, is.PullRequest)
	assert.Contains(t, is.HTMLURL, "/octo/hello/issues/1")
	require.Len(t, is.Labels, 2)
	assert.Equal(t, "issuesmith", is.Labels[0].Name)

	made, err := c.CreateComment(t.Context(), owner, repo, n, "on it")
	require.NoError(t, err)
	assert.Equal(t, "issuesmith", made.User.Login)
	edited, err := c.EditComment(t.Context(), owner, repo, made.ID, "done")
	require.NoError(t, err)
	assert.Equal(t, "done", edited.Body)
	got, err := c.Comment(t.Context(), owner, repo, first)
	require.NoError(t, err)
	assert.Equal(t, "more detail", got.Body)
	all, err := c.IssueComments(t.Context(), owner, repo, n)
	require.NoError(t, err)
	require.Len(t, all, 2)
	assert.Equal(t, []string{"more detail", "done"}, []string{all[0].Body, all[1].Body})
	_, err = c.Comment(t.Context(), owner, repo, 9999)
	assert.ErrorIs(t, err, gitea.ErrNotFound)

	require.NoError(t, c.React(t.Context(), owner, repo, n, "eyes"))
	require.NoError(t, c.React(t.Context(), owner, repo, n, "eyes"), "an existing reaction is fine")
	assert.Equal(t, []string{"issuesmith:eyes"}, srv.Reactions(owner, repo, n))

	labels, err := c.IssueLabels(t.Context(), owner, repo, n)
	require.NoError(t, err)
	require.Len(t, labels, 2)
	require.NoError(t, c.RemoveLabel(t.Context(), owner, repo, n, labels[0].ID))
	assert.Equal(t, []string{"bug"}, srv.Labels(owner, repo, n))
}

// A deleted issue is 404; Gitea 1.26 answers its comment routes with 500
// (not told apart from a failure), which the transport retries first.
func TestDeletedIssue(t *testing.T) {
	t.Parallel()
	srv, c, _, w := setup(t, func(o *gitea.Options) { o.Transport.MaxRetries = 1 })
	n := srv.AddIssue(owner, repo, giteatest.Issue{Title: "gone", User: "alice"})
	srv.DeleteIssue(owner, repo, n)
	_, err := c.Issue(t.Context(), owner, repo, n)
	require.ErrorIs(t, err, gitea.ErrNotFound)
	_, err = c.IssueLabels(t.Context(), owner, repo, n)
	require.ErrorIs(t, err, gitea.ErrNotFound)
	err = c.React(t.Context(), owner, repo, n, "eyes")
	require.ErrorIs(t, err, gitea.ErrNotFound)
	_, err = c.CreateComment(t.Context(), owner, repo, n, "x")
	var ge *gitea.Error
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, http.StatusInternalServerError, ge.Status)
	assert.Len(t, w.all(), 1, "one retry")
}
