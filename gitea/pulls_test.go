package gitea_test

import (
	"fmt"
	"testing"

	"github.com/issuesmith/issuesmith/gitea"
	"github.com/issuesmith/issuesmith/gitea/giteatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const headSHA, baseSHA = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"

func TestPullRequestLifecycle(t *testing.T) {
	t.Parallel()
	srv, c, _, _ := setup(t, nil)
	srv.AddUser("alice", false)
	srv.SetBranch(owner, repo, "main", baseSHA)
	srv.SetBranch(owner, repo, "issuesmith/issue-1", headSHA)

	pr, err := c.CreatePullRequest(t.Context(), owner, repo, gitea.NewPullRequest{
		Title: "WIP: Add a flag", Head: "issuesmith/issue-1", Base: "main", Body: "Closes #1"})
	require.NoError(t, err)
	assert.True(t, pr.Draft, "the WIP: prefix is Gitea's draft")
	assert.Equal(t, "open", pr.State)
	assert.Equal(t, gitea.Branch{Label: "issuesmith/issue-1", Ref: "issuesmith/issue-1", SHA: headSHA, RepoID: pr.Head.RepoID}, pr.Head)
	assert.Equal(t, "main", pr.Base.Ref)
	assert.Equal(t, baseSHA, pr.MergeBase)

	found, err := c.PullRequestByBranches(t.Context(), owner, repo, "main", "issuesmith/issue-1")
	require.NoError(t, err)
	assert.Equal(t, pr.Number, found.Number)
	_, err = c.PullRequestByBranches(t.Context(), owner, repo, "main", "other/branch")
	require.ErrorIs(t, err, gitea.ErrNotFound)

	title, body := "Add a flag", "Closes #1\n\nready"
	ready, err := c.EditPullRequest(t.Context(), owner, repo, pr.Number, gitea.EditPullRequest{Title: &title, Body: &body})
	require.NoError(t, err)
	assert.False(t, ready.Draft)
	assert.Equal(t, body, ready.Body)
	onlyBody := "b2"
	again, err := c.EditPullRequest(t.Context(), owner, repo, pr.Number, gitea.EditPullRequest{Body: &onlyBody})
	require.NoError(t, err)
	assert.Equal(t, "Add a flag", again.Title, "an unset title is kept")

	got, err := c.PullRequest(t.Context(), owner, repo, pr.Number)
	require.NoError(t, err)
	assert.Equal(t, "b2", got.Body)
	is, err := c.Issue(t.Context(), owner, repo, pr.Number)
	require.NoError(t, err)
	require.NotNil(t, is.PullRequest, "a pull request's issue says so")

	require.NoError(t, c.RequestReviewers(t.Context(), owner, repo, pr.Number, "alice"))
	assert.Equal(t, []string{"alice"}, srv.Pulls(owner, repo)[0].RequestedReviews)

	id := srv.AddReview(owner, repo, pr.Number, giteatest.Review{User: "alice", State: "REQUEST_CHANGES", Body: "see",
		Comments: []giteatest.ReviewComment{{Path: "main.go", Body: "rename", Line: 12, DiffHunk: "@@ -1 +1 @@"}}})
	reviews, err := c.Reviews(t.Context(), owner, repo, pr.Number)
	require.NoError(t, err)
	require.Len(t, reviews, 2, "the review request is listed as a review")
	assert.Equal(t, "REQUEST_REVIEW", reviews[0].State)
	assert.Equal(t, gitea.Review{ID: id, User: reviews[1].User, Body: "see", State: "REQUEST_CHANGES", CommitID: headSHA,
		Official: true, CommentsCount: 1, HTMLURL: reviews[1].HTMLURL, Submitted: reviews[1].Submitted,
		Updated: reviews[1].Updated}, reviews[1])
	rcs, err := c.ReviewComments(t.Context(), owner, repo, pr.Number, id)
	require.NoError(t, err)
	require.Len(t, rcs, 1)
	assert.Equal(t, "main.go", rcs[0].Path)
	assert.Equal(t, 12, rcs[0].Position)
	assert.Equal(t, 0, rcs[0].OriginalPosition)
	assert.Equal(t, id, rcs[0].ReviewID)
	assert.Equal(t, "alice", rcs[0].User.Login)
	assert.Equal(t, "@@ -1 +1 @@", rcs[0].DiffHunk)
}

// Lists follow Gitea's pages: pull requests by the Link header, reviews
// and hooks by X-Total-Count alone.
func TestPagination(t *testing.T) {
	t.Parallel()
	srv, c, _, _ := setup(t, func(o *gitea.Options) { o.PageSize = 3 })
	for i := range 7 {
		srv.AddPull(owner, repo, giteatest.Pull{Title: fmt.Sprint("pr ", i), User: "alice",
			Head: fmt.Sprint("b", i), HeadSHA: headSHA, Base: "main", BaseSHA: baseSHA})
	}
	for range 5 {
		srv.AddReview(owner, repo, 1, giteatest.Review{User: "bob", State: "COMMENT"})
	}
	prs, err := c.PullRequests(t.Context(), owner, repo, "open")
	require.NoError(t, err)
	require.Len(t, prs, 7)
	assert.Equal(t, 7, prs[0].Number, "newest first")
	assert.Equal(t, 3, srv.Calls("GET /repos/{owner}/{repo}/pulls"))
	rs, err := c.Reviews(t.Context(), owner, repo, 1)
	require.NoError(t, err)
	assert.Len(t, rs, 5)
	assert.Equal(t, 2, srv.Calls("GET /repos/{owner}/{repo}/pulls/{index}/reviews"))
	none, err := c.PullRequests(t.Context(), owner, repo, "closed")
	require.NoError(t, err)
	assert.Empty(t, none)
}

func TestPaginationStopsAtTheCap(t *testing.T) {
	t.Parallel()
	srv, c, _, _ := setup(t, func(o *gitea.Options) { o.PageSize, o.MaxPages = 2, 2 })
	for i := range 7 {
		srv.AddPull(owner, repo, giteatest.Pull{Title: fmt.Sprint("pr ", i), User: "alice",
			Head: fmt.Sprint("b", i), HeadSHA: headSHA, Base: "main", BaseSHA: baseSHA})
	}
	prs, err := c.PullRequests(t.Context(), owner, repo, "all")
	require.NoError(t, err)
	assert.Len(t, prs, 4)
}
