package repo

import (
	"context"
	"fmt"
	"strings"
)

// Uncommitted lists the paths git reports as changed or untracked (not
// ignored) in the workspace's checkout; inGit is false, with no error, when
// the directory is not inside a git work tree (nothing to compare with).
func (w *Workspace) Uncommitted(ctx context.Context) (paths []string, inGit bool, err error) {
	if _, err := runGit(ctx, w.dir, "", "rev-parse", "--is-inside-work-tree"); err != nil {
		return nil, false, nil
	}
	res, err := runGit(ctx, w.dir, "", "status", "--porcelain=v1", "-z", "--untracked-files=normal")
	if err != nil {
		return nil, true, fmt.Errorf("git status: %w", err)
	}
	for _, rec := range strings.Split(res.stdout, "\x00") {
		if len(rec) > 3 {
			paths = append(paths, rec[3:])
		}
	}
	return paths, true, nil
}
