package ghapp

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/issuesmith/issuesmith/internal/ghtext"
)

// FindComment returns the bot's comment on issue or PR number that carries a
// marker of want's kind (and want's run, when want.Run is set), with the
// marker found. Only comments written by a bot account count — by the App's
// own bot when its login is known — so a user cannot plant a marker. It
// returns ErrNotFound when there is none; when several match, the oldest wins.
func (c *Client) FindComment(ctx context.Context, owner, repo string, number int, want ghtext.Marker) (*github.IssueComment, ghtext.Marker, error) {
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		page, resp, err := c.gh.Issues.ListComments(ctx, owner, repo, number, opts)
		if err != nil {
			return nil, ghtext.Marker{}, fmt.Errorf("list comments of %s/%s#%d: %w", owner, repo, number, notFound(err))
		}
		for _, ic := range page {
			if !c.byBot(ic.GetUser()) {
				continue
			}
			if m, ok := ghtext.ParseMarker(ic.GetBody()); ok && want.Matches(m) {
				return ic, m, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, ghtext.Marker{}, fmt.Errorf("comment %s on %s/%s#%d: %w", want.Kind, owner, repo, number, ErrNotFound)
		}
		opts.Page = resp.NextPage
	}
}

// byBot reports whether u is the App's bot (or, before its login is known,
// any bot account).
func (c *Client) byBot(u *github.User) bool {
	if u.GetType() != "Bot" {
		return false
	}
	c.app.mu.Lock()
	bot := c.app.bot
	c.app.mu.Unlock()
	return bot == "" || strings.EqualFold(u.GetLogin(), bot)
}

// UpsertComment makes sure issue or PR number has exactly the bot's comment
// identified by marker with the given body: it edits the comment found by
// FindComment, or creates one. The marker is written into the body (replacing
// any marker already there); when marker.Version is 0 the version is the
// found comment's plus one. An edit whose text equals the current text is
// skipped, so retried steps do not touch GitHub. Callers serialise upserts of
// one comment (one run per issue).
func (c *Client) UpsertComment(ctx context.Context, owner, repo string, number int, marker ghtext.Marker, body string) (*github.IssueComment, error) {
	found, m, err := c.FindComment(ctx, owner, repo, number, marker)
	switch {
	case err == nil:
		if marker.Run == "" {
			marker.Run = m.Run
		}
		if marker.Version == 0 {
			marker.Version = m.Version + 1
		}
		if ghtext.StripMarker(found.GetBody()) == ghtext.StripMarker(body) {
			return found, nil
		}
		text := ghtext.WithMarker(body, marker)
		ic, _, err := c.gh.Issues.EditComment(ctx, owner, repo, found.GetID(), &github.IssueComment{Body: &text})
		if err != nil {
			return nil, fmt.Errorf("edit comment %d on %s/%s#%d: %w", found.GetID(), owner, repo, number, notFound(err))
		}
		return ic, nil
	case isNotFound(err):
		marker.Version = max(marker.Version, 1)
		return c.CreateComment(ctx, owner, repo, number, ghtext.WithMarker(body, marker))
	default:
		return nil, err
	}
}

// CreateComment posts a new comment on issue or PR number.
func (c *Client) CreateComment(ctx context.Context, owner, repo string, number int, body string) (*github.IssueComment, error) {
	ic, _, err := c.gh.Issues.CreateComment(ctx, owner, repo, number, &github.IssueComment{Body: &body})
	if err != nil {
		return nil, fmt.Errorf("create comment on %s/%s#%d: %w", owner, repo, number, notFound(err))
	}
	return ic, nil
}

// GetComment fetches an issue comment by id (the webhook gives ids; the
// workflow re-reads a comment a user may have edited since).
func (c *Client) GetComment(ctx context.Context, owner, repo string, id int64) (*github.IssueComment, error) {
	ic, _, err := c.gh.Issues.GetComment(ctx, owner, repo, id)
	if err != nil {
		return nil, fmt.Errorf("get comment %d in %s/%s: %w", id, owner, repo, notFound(err))
	}
	return ic, nil
}

// Reaction contents GitHub accepts.
const (
	ReactEyes     = "eyes"
	ReactRocket   = "rocket"
	ReactThumbsUp = "+1"
	ReactConfused = "confused"
)

// React adds a reaction to an issue comment (GitHub answers 200 when it is
// already there, so repeating is harmless).
func (c *Client) React(ctx context.Context, owner, repo string, commentID int64, content string) error {
	if _, _, err := c.gh.Reactions.CreateIssueCommentReaction(ctx, owner, repo, commentID, content); err != nil {
		return fmt.Errorf("react %s to comment %d in %s/%s: %w", content, commentID, owner, repo, notFound(err))
	}
	return nil
}

// ReactIssue adds a reaction to an issue or pull request itself.
func (c *Client) ReactIssue(ctx context.Context, owner, repo string, number int, content string) error {
	if _, _, err := c.gh.Reactions.CreateIssueReaction(ctx, owner, repo, number, content); err != nil {
		return fmt.Errorf("react %s to %s/%s#%d: %w", content, owner, repo, number, notFound(err))
	}
	return nil
}

// ReactReviewComment adds a reaction to a pull request review comment.
func (c *Client) ReactReviewComment(ctx context.Context, owner, repo string, commentID int64, content string) error {
	if _, _, err := c.gh.Reactions.CreatePullRequestCommentReaction(ctx, owner, repo, commentID, content); err != nil {
		return fmt.Errorf("react %s to review comment %d in %s/%s: %w", content, commentID, owner, repo, notFound(err))
	}
	return nil
}
