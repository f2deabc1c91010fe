package repo

import (
	"context"
	"fmt"
	"regexp"
)

var hexSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// DiffSince returns the diff of the checkout from its merge base with
// commit base to HEAD (what a pull request against base shows), plain and
// without colour. base must be a full commit id present in the checkout's
// objects (a worktree shares its cache's).
func (w *Workspace) DiffSince(ctx context.Context, base string) (string, error) {
	if !hexSHA.MatchString(base) {
		return "", fmt.Errorf("diff since %q: not a full commit id", base)
	}
	res, err := w.git().run(ctx, "diff", "--no-color", "--no-ext-diff", base+"...HEAD")
	if err != nil {
		return "", fmt.Errorf("diff since %s: %w", base[:12], err)
	}
	return res.stdout, nil
}
