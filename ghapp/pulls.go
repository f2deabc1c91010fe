package ghapp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"
)

// NewPR describes a pull request to open.
type NewPR struct {
	Title string
	Head  string // branch in the same repository, e.g. "issuesmith/issue-7", or a fork's "owner:branch"
	Base  string
	Body  string
	Draft bool
}

// PRUpdate lists the fields of a pull request to change; nil leaves a field.
type PRUpdate struct {
	Title *string
	Body  *string
	State *string // "open" or "closed"
}

// FindPR returns the pull request from branch head of owner/repo (or from
// a fork's branch, head "forkowner:branch"): the open one if any, else the
// most recently created. ErrNotFound when none exists.
func (c *Client) FindPR(ctx context.Context, owner, repo, head string) (*github.PullRequest, error) {
	headOwner, branch, fork := strings.Cut(head, ":")
	if !fork {
		headOwner, branch = owner, head
	}
	label := headOwner + ":" + branch
	opts := &github.PullRequestListOptions{State: "all", Head: label,
		ListOptions: github.ListOptions{PerPage: 100}}
	prs, _, err := c.gh.PullRequests.List(ctx, owner, repo, opts)
	if err != nil {
		return nil, fmt.Errorf("find pull request from %s in %s/%s: %w", head, owner, repo, notFound(err))
	}
	var best *github.PullRequest
	for _, pr := range prs {
		gotOwner, gotRef, _ := strings.Cut(pr.GetHead().GetLabel(), ":")
		if pr.GetHead().GetRef() != branch || !strings.EqualFold(gotOwner, headOwner) || gotRef != branch {
			continue
		}
		switch {
		case best == nil,
			pr.GetState() == "open" && best.GetState() != "open",
			pr.GetState() == best.GetState() && pr.GetNumber() > best.GetNumber():
			best = pr
		}
	}
	if best == nil {
		return nil, fmt.Errorf("pull request from %s in %s/%s: %w", head, owner, repo, ErrNotFound)
	}
	return best, nil
}

// CreatePR opens a pull request. When GitHub says one already exists for the
// branch (a retried step), the existing open one is returned instead.
func (c *Client) CreatePR(ctx context.Context, owner, repo string, p NewPR) (*github.PullRequest, error) {
	pr, _, err := c.gh.PullRequests.Create(ctx, owner, repo, &github.NewPullRequest{
		Title: &p.Title, Head: &p.Head, Base: &p.Base, Body: &p.Body, Draft: &p.Draft,
	})
	if err == nil {
		return pr, nil
	}
	if isStatus(err, http.StatusUnprocessableEntity) {
		if found, ferr := c.FindPR(ctx, owner, repo, p.Head); ferr == nil && found.GetState() == "open" {
			return found, nil
		}
	}
	return nil, fmt.Errorf("create pull request from %s in %s/%s: %w", p.Head, owner, repo, notFound(err))
}

// GetPR fetches a pull request.
func (c *Client) GetPR(ctx context.Context, owner, repo string, number int) (*github.PullRequest, error) {
	pr, _, err := c.gh.PullRequests.Get(ctx, owner, repo, number)
	if err != nil {
		return nil, fmt.Errorf("get pull request %s/%s#%d: %w", owner, repo, number, notFound(err))
	}
	return pr, nil
}

// UpdatePR edits a pull request's title, body or state.
func (c *Client) UpdatePR(ctx context.Context, owner, repo string, number int, u PRUpdate) (*github.PullRequest, error) {
	if u.Title == nil && u.Body == nil && u.State == nil {
		return nil, errors.New("update pull request: nothing to change")
	}
	pr, _, err := c.gh.PullRequests.Edit(ctx, owner, repo, number, &github.PullRequest{
		Title: u.Title, Body: u.Body, State: u.State,
	})
	if err != nil {
		return nil, fmt.Errorf("update pull request %s/%s#%d: %w", owner, repo, number, notFound(err))
	}
	return pr, nil
}

// RequestReviewers asks users to review pull request number. Asking again
// is harmless; GitHub refuses the PR's author, so callers skip them.
func (c *Client) RequestReviewers(ctx context.Context, owner, repo string, number int, users ...string) error {
	if len(users) == 0 {
		return nil
	}
	_, _, err := c.gh.PullRequests.RequestReviewers(ctx, owner, repo, number, github.ReviewersRequest{Reviewers: users})
	if err != nil {
		return fmt.Errorf("request reviewers %v on %s/%s#%d: %w", users, owner, repo, number, notFound(err))
	}
	return nil
}
