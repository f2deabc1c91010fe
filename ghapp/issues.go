package ghapp

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/go-github/v60/github"
)

// GetIssue fetches an issue (or a pull request seen as an issue).
func (c *Client) GetIssue(ctx context.Context, owner, repo string, number int) (*github.Issue, error) {
	is, _, err := c.gh.Issues.Get(ctx, owner, repo, number)
	if err != nil {
		return nil, fmt.Errorf("get issue %s/%s#%d: %w", owner, repo, number, notFound(err))
	}
	return is, nil
}

// Repository fetches a repository (its default branch, clone URL).
func (c *Client) Repository(ctx context.Context, owner, repo string) (*github.Repository, error) {
	r, _, err := c.gh.Repositories.Get(ctx, owner, repo)
	if err != nil {
		return nil, fmt.Errorf("get repository %s/%s: %w", owner, repo, notFound(err))
	}
	return r, nil
}

// AddLabels adds labels to issue or PR number; labels already there stay.
func (c *Client) AddLabels(ctx context.Context, owner, repo string, number int, labels ...string) error {
	if len(labels) == 0 {
		return nil
	}
	if _, _, err := c.gh.Issues.AddLabelsToIssue(ctx, owner, repo, number, labels); err != nil {
		return fmt.Errorf("add labels %v to %s/%s#%d: %w", labels, owner, repo, number, notFound(err))
	}
	return nil
}

// RemoveLabel removes a label from issue or PR number. A label that is not
// there is not an error (the trigger label is reset at the end of every run,
// possibly twice).
func (c *Client) RemoveLabel(ctx context.Context, owner, repo string, number int, label string) error {
	_, err := c.gh.Issues.RemoveLabelForIssue(ctx, owner, repo, number, label)
	if err != nil && !isStatus(err, http.StatusNotFound) {
		return fmt.Errorf("remove label %q from %s/%s#%d: %w", label, owner, repo, number, err)
	}
	return nil
}
