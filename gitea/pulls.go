package gitea

import (
	"context"
	"net/http"
)

// PullRequest returns a pull request.
func (c *Client) PullRequest(ctx context.Context, owner, repo string, index int) (*PullRequest, error) {
	var out PullRequest
	if err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "pulls", itoa(index)), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// PullRequests lists a repository's pull requests in state ("open",
// "closed", "all"; "" is Gitea's default, open), every page.
func (c *Client) PullRequests(ctx context.Context, owner, repo, state string) ([]PullRequest, error) {
	return list[PullRequest](ctx, c, repoPath(owner, repo, "pulls"), query("state", state))
}

// PullRequestByBranches returns the pull request from head (a branch of
// the repository, or "owner:branch" of a fork) into base, ErrNotFound when
// there is none.
func (c *Client) PullRequestByBranches(ctx context.Context, owner, repo, base, head string) (*PullRequest, error) {
	var out PullRequest
	p := repoPath(owner, repo, "pulls", base) + "/" + splitPath(head)
	if err := c.do(ctx, http.MethodGet, p, nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreatePullRequest opens a pull request; a title starting "WIP:" makes it
// a draft.
func (c *Client) CreatePullRequest(ctx context.Context, owner, repo string, p NewPullRequest) (*PullRequest, error) {
	var out PullRequest
	if err := c.do(ctx, http.MethodPost, repoPath(owner, repo, "pulls"), nil, p, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// EditPullRequest changes a pull request's title and body (those set).
func (c *Client) EditPullRequest(ctx context.Context, owner, repo string, index int, e EditPullRequest) (*PullRequest, error) {
	var out PullRequest
	if err := c.do(ctx, http.MethodPatch, repoPath(owner, repo, "pulls", itoa(index)), nil, e, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RequestReviewers asks users to review a pull request.
func (c *Client) RequestReviewers(ctx context.Context, owner, repo string, index int, users ...string) error {
	in := map[string][]string{"reviewers": users}
	return c.do(ctx, http.MethodPost, repoPath(owner, repo, "pulls", itoa(index), "requested_reviewers"), nil, in, nil)
}

// Reviews lists a pull request's reviews, every page. Gitea lists a
// request for review (state REQUEST_REVIEW) as a review too.
func (c *Client) Reviews(ctx context.Context, owner, repo string, index int) ([]Review, error) {
	return list[Review](ctx, c, repoPath(owner, repo, "pulls", itoa(index), "reviews"), nil)
}

// ReviewComments returns a review's line comments (one list, without
// pages).
func (c *Client) ReviewComments(ctx context.Context, owner, repo string, index int, reviewID int64) ([]ReviewComment, error) {
	var out []ReviewComment
	p := repoPath(owner, repo, "pulls", itoa(index), "reviews", i64toa(reviewID), "comments")
	if err := c.do(ctx, http.MethodGet, p, nil, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}
