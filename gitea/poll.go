package gitea

import (
	"context"
	"net/url"
	"time"
)

// The calls of a polling pass (giteapoll): what changed since a time, for
// the deliveries Gitea could not make (it keeps no delivery log the bot
// can read).

// UserRepos lists the repositories the token's user can reach (owned,
// collaborator, organisation member), with the user's permissions.
func (c *Client) UserRepos(ctx context.Context) ([]Repository, error) {
	return list[Repository](ctx, c, path("user", "repos"), nil)
}

// IssuesSince lists the open issues (not pull requests) of owner/repo
// updated since since.
func (c *Client) IssuesSince(ctx context.Context, owner, repo string, since time.Time) ([]Issue, error) {
	q := url.Values{"state": {"open"}, "type": {"issues"}, "since": {since.UTC().Format(time.RFC3339)}}
	return list[Issue](ctx, c, repoPath(owner, repo, "issues"), q)
}

// CommentsSince lists the comments of owner/repo's issues and pull
// requests updated since since.
func (c *Client) CommentsSince(ctx context.Context, owner, repo string, since time.Time) ([]Comment, error) {
	q := url.Values{"since": {since.UTC().Format(time.RFC3339)}}
	return list[Comment](ctx, c, repoPath(owner, repo, "issues", "comments"), q)
}
