package ghapp

import (
	"context"
	"fmt"

	"github.com/google/go-github/v60/github"
)

// FileContent returns the bytes of the file at path on ref (a branch, tag or
// sha; "" is the default branch). It returns ErrNotFound when the file does
// not exist, and an error when path is a directory.
func (c *Client) FileContent(ctx context.Context, owner, repo, path, ref string) ([]byte, error) {
	var opts *github.RepositoryContentGetOptions
	if ref != "" {
		opts = &github.RepositoryContentGetOptions{Ref: ref}
	}
	fc, _, _, err := c.gh.Repositories.GetContents(ctx, owner, repo, path, opts)
	if err != nil {
		return nil, fmt.Errorf("get %s from %s/%s@%s: %w", path, owner, repo, ref, notFound(err))
	}
	if fc == nil {
		return nil, fmt.Errorf("get %s from %s/%s@%s: is a directory", path, owner, repo, ref)
	}
	s, err := fc.GetContent()
	if err != nil {
		return nil, fmt.Errorf("decode %s from %s/%s@%s: %w", path, owner, repo, ref, err)
	}
	return []byte(s), nil
}
