package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ErrUnsafeEntry is wrapped by Commit when the work tree holds something
// that is not content the bot may stage: a new or changed symbolic link
// whose target leaves the repository.
var ErrUnsafeEntry = errors.New("not stageable content")

// vetTree makes the work tree content the bot can stage, as it would an
// attacker's tarball: after a sandboxed command, everything in it is
// untrusted data. A .git at any depth (a folder or file a command left: a
// fake repository with hooks or a config, or a pointer to another git
// directory) is removed — it is never content, and the bot's git never
// looks for one. Special files (FIFOs, sockets, devices) are removed: git
// cannot stage them, and reading one would block or read a device. A
// symbolic link stays when its target resolves inside the tree, or when
// HEAD already holds the same link; any other link refuses the commit with
// ErrUnsafeEntry, naming it. Only regular files, folders and those links
// are left.
func (wt *Worktree) vetTree() error {
	var bad []string
	err := filepath.WalkDir(wt.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == wt.Dir {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, wt.Dir+string(filepath.Separator)))
		typ := d.Type()
		switch {
		case d.Name() == ".git":
			if err := os.RemoveAll(p); err != nil {
				return fmt.Errorf("remove %s: %w", rel, err)
			}
			if typ.IsDir() {
				return fs.SkipDir
			}
		case typ&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if !linkInside(rel, target) && !wt.headHasLink(rel, target) {
				bad = append(bad, fmt.Sprintf("%s -> %s", rel, target))
			}
		case typ.IsDir(), typ.IsRegular():
		default:
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("remove special file %s: %w", rel, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("vet the work tree: %w", err)
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("symbolic links leaving the repository: %s: %w", strings.Join(bad, ", "), ErrUnsafeEntry)
	}
	return nil
}

// linkInside reports whether a link at rel (slash path) with target
// resolves inside the tree, lexically: relative, and never above the root.
func linkInside(rel, target string) bool {
	if target == "" || path.IsAbs(filepath.ToSlash(target)) {
		return false
	}
	joined := path.Join(path.Dir(rel), filepath.ToSlash(target))
	return joined != ".." && !strings.HasPrefix(joined, "../")
}

// headHasLink reports whether the branch's head commit holds a link at rel
// with the same target (the repository's own link, unchanged).
func (wt *Worktree) headHasLink(rel, target string) bool {
	head, err := wt.Head()
	if err != nil {
		return false
	}
	c, err := object.GetCommit(wt.repo.Storer, plumbing.NewHash(head))
	if err != nil {
		return false
	}
	tree, err := c.Tree()
	if err != nil {
		return false
	}
	f, err := tree.File(rel)
	if err != nil || f.Mode != filemode.Symlink {
		return false
	}
	s, err := f.Contents()
	return err == nil && s == target
}
