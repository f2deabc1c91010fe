package repo

import (
	"context"
	"fmt"
	"strings"
	"unicode"
)

// Uncommitted lists the paths git reports as changed or untracked (not
// ignored) in the workspace's checkout; inGit is false, with no error, when
// the directory is not inside a git work tree (nothing to compare with).
func (w *Workspace) Uncommitted(ctx context.Context) (paths []string, inGit bool, err error) {
	if _, err := w.git().run(ctx, "rev-parse", "--is-inside-work-tree"); err != nil {
		return nil, false, nil
	}
	res, err := w.git().run(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=normal")
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

// NewBranch creates branch name from the checkout's HEAD and switches the
// work tree to it (uncommitted changes come along, as with git switch -c).
// When name exists it tries name-2, name-3, … and returns the name used.
// The user's other branches are never touched.
func (w *Workspace) NewBranch(ctx context.Context, name string) (string, error) {
	if err := checkBranchName(name); err != nil {
		return "", err
	}
	for i := 1; i <= 100; i++ {
		try := name
		if i > 1 {
			try = fmt.Sprintf("%s-%d", name, i)
		}
		if _, err := w.git().run(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+try); err == nil {
			continue // taken
		}
		if _, err := w.git().run(ctx, "switch", "--quiet", "--create", try); err != nil {
			return "", fmt.Errorf("git switch --create %s: %w", try, err)
		}
		return try, nil
	}
	return "", fmt.Errorf("branches %s to %s-100 all exist", name, name)
}

// InGit reports whether the workspace is inside a git work tree.
func (w *Workspace) InGit(ctx context.Context) bool {
	_, err := w.git().run(ctx, "rev-parse", "--is-inside-work-tree")
	return err == nil
}

// BranchForTitle is the branch `bot solve` writes an issue's change on:
// issuesmith/ and the title's words in lower case joined by dashes (letters
// and digits only, at most 40 characters), or issuesmith/solve.
func BranchForTitle(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		ok := r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))
		switch {
		case ok && b.Len() < 40:
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		case !ok:
			dash = true
		}
	}
	if b.Len() == 0 {
		return "issuesmith/solve"
	}
	return "issuesmith/" + strings.TrimSuffix(b.String(), "-")
}
