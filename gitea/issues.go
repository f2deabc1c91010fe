package gitea

import (
	"context"
	"net/http"
)

// Issue returns an issue (or a pull request's issue: PullRequest set).
func (c *Client) Issue(ctx context.Context, owner, repo string, index int) (*Issue, error) {
	var out Issue
	if err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "issues", itoa(index)), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// IssueComments returns an issue's (or pull request's) comments, oldest
// first. Gitea answers them in one list, without pages.
func (c *Client) IssueComments(ctx context.Context, owner, repo string, index int) ([]Comment, error) {
	var out []Comment
	if err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "issues", itoa(index), "comments"), nil, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Comment returns one comment by id.
func (c *Client) Comment(ctx context.Context, owner, repo string, id int64) (*Comment, error) {
	var out Comment
	if err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "issues", "comments", i64toa(id)), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateComment comments on an issue or pull request.
func (c *Client) CreateComment(ctx context.Context, owner, repo string, index int, body string) (*Comment, error) {
	var out Comment
	in := map[string]string{"body": body}
	if err := c.do(ctx, http.MethodPost, repoPath(owner, repo, "issues", itoa(index), "comments"), nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// EditComment replaces a comment's body.
func (c *Client) EditComment(ctx context.Context, owner, repo string, id int64, body string) (*Comment, error) {
	var out Comment
	in := map[string]string{"body": body}
	if err := c.do(ctx, http.MethodPatch, repoPath(owner, repo, "issues", "comments", i64toa(id)), nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// React adds the token user's reaction (content: "eyes", "+1", "rocket"…)
// to an issue or pull request; a reaction already there is no error
// (Gitea answers it with 200 instead of 201).
func (c *Client) React(ctx context.Context, owner, repo string, index int, content string) error {
	in := map[string]string{"content": content}
	return c.do(ctx, http.MethodPost, repoPath(owner, repo, "issues", itoa(index), "reactions"), nil, in, nil)
}

// IssueLabels returns an issue's labels (one list, without pages).
func (c *Client) IssueLabels(ctx context.Context, owner, repo string, index int) ([]Label, error) {
	var out []Label
	if err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "issues", itoa(index), "labels"), nil, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// RemoveLabel takes a label (by its id, as IssueLabels gives it) off an
// issue.
func (c *Client) RemoveLabel(ctx context.Context, owner, repo string, index int, labelID int64) error {
	return c.do(ctx, http.MethodDelete, repoPath(owner, repo, "issues", itoa(index), "labels", i64toa(labelID)), nil, nil, nil)
}
