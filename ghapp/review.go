package ghapp

import (
	"context"
	"fmt"
	"net/url"
	"sort"

	"github.com/google/go-github/v60/github"
)

// GetReviewComment fetches a pull request review comment by id.
func (c *Client) GetReviewComment(ctx context.Context, owner, repo string, id int64) (*github.PullRequestComment, error) {
	rc, _, err := c.gh.PullRequests.GetComment(ctx, owner, repo, id)
	if err != nil {
		return nil, fmt.Errorf("get review comment %d in %s/%s: %w", id, owner, repo, notFound(err))
	}
	return rc, nil
}

// ReviewThread returns the review thread that comment id belongs to on pull
// request number: its first comment, then the replies in the order written.
func (c *Client) ReviewThread(ctx context.Context, owner, repo string, number int, id int64) ([]*github.PullRequestComment, error) {
	opts := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	var all []*github.PullRequestComment
	for {
		page, resp, err := c.gh.PullRequests.ListComments(ctx, owner, repo, number, opts)
		if err != nil {
			return nil, fmt.Errorf("list review comments of %s/%s#%d: %w", owner, repo, number, notFound(err))
		}
		all = append(all, page...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	root := id
	for _, rc := range all {
		if rc.GetID() == id && rc.GetInReplyTo() != 0 {
			root = rc.GetInReplyTo()
		}
	}
	var thread []*github.PullRequestComment
	for _, rc := range all {
		if rc.GetID() == root || rc.GetInReplyTo() == root {
			thread = append(thread, rc)
		}
	}
	if len(thread) == 0 {
		return nil, fmt.Errorf("review thread of comment %d on %s/%s#%d: %w", id, owner, repo, number, ErrNotFound)
	}
	sort.SliceStable(thread, func(i, j int) bool {
		if (thread[i].GetID() == root) != (thread[j].GetID() == root) {
			return thread[i].GetID() == root
		}
		return thread[i].GetID() < thread[j].GetID()
	})
	return thread, nil
}

// ReplyToReviewComment answers in the thread of review comment id on pull
// request number, through GitHub's replies endpoint (go-github v60 only has
// the older in_reply_to form of "create a review comment").
func (c *Client) ReplyToReviewComment(ctx context.Context, owner, repo string, number int, id int64, body string) (*github.PullRequestComment, error) {
	u := fmt.Sprintf("repos/%s/%s/pulls/%d/comments/%d/replies", url.PathEscape(owner), url.PathEscape(repo), number, id)
	req, err := c.gh.NewRequest("POST", u, struct {
		Body string `json:"body"`
	}{body})
	rc := new(github.PullRequestComment)
	if err == nil {
		_, err = c.gh.Do(ctx, req, rc)
	}
	if err != nil {
		return nil, fmt.Errorf("reply to review comment %d on %s/%s#%d: %w", id, owner, repo, number, notFound(err))
	}
	return rc, nil
}
