package ghapp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

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
// It sends the {"labels": [...]} form: go-github's bare array is accepted by
// GitHub today but is not in its published description.
func (c *Client) AddLabels(ctx context.Context, owner, repo string, number int, labels ...string) error {
	if len(labels) == 0 {
		return nil
	}
	u := fmt.Sprintf("repos/%s/%s/issues/%d/labels", url.PathEscape(owner), url.PathEscape(repo), number)
	req, err := c.gh.NewRequest("POST", u, struct {
		Labels []string `json:"labels"`
	}{labels})
	if err == nil {
		_, err = c.gh.Do(ctx, req, &[]*github.Label{})
	}
	if err != nil {
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
