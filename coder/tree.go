package coder

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/issuesmith/issuesmith/internal/sandbox"
	"github.com/issuesmith/issuesmith/repo"
)

// tree is the coder's confined write access to one checkout. Every path is
// repo-relative and resolved through the workspace's os.Root, so "../x" or a
// symlink out of the worktree fails instead of escaping.
type tree struct {
	dir  string
	root *os.Root // the workspace's: not closed here
	// repo names the repository by the bot's record (Workspace.Repository):
	// the key of its sandbox caches.
	repo string
	// modules are the module versions the repository's committed go.mod
	// and go.sum name (sandbox.Policy.TrustedModules), read from git.
	modules []string
}

// treeOf is write access through ws's own confined root: the run reads,
// writes and applies edits through the one handle the workspace holds.
func treeOf(ctx context.Context, ws *repo.Workspace) *tree {
	goMod, _ := ws.CommittedFile(ctx, "go.mod")
	goSum, _ := ws.CommittedFile(ctx, "go.sum")
	return &tree{dir: ws.Dir(), root: ws.Root(), repo: ws.Repository(), modules: sandbox.CommittedModules(goMod, goSum)}
}

// read returns the file's bytes and whether it exists.
func (t *tree) read(p string) ([]byte, bool, error) {
	b, err := t.root.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", p, err)
	}
	return b, true, nil
}

// write replaces the file's content, keeping its mode when it exists and
// creating parent directories when it does not.
func (t *tree) write(p string, data []byte) error {
	mode := fs.FileMode(0o644)
	if st, err := t.root.Stat(p); err == nil {
		mode = st.Mode().Perm()
	} else if dir := path.Dir(p); dir != "." {
		if err := t.root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create directory %s: %w", dir, err)
		}
	}
	if err := t.root.WriteFile(p, data, mode); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

// restore puts a snapshot back: the old bytes, or no file when it was absent.
func (t *tree) restore(p string, s snapshot) error {
	if !s.exists {
		if err := t.root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", p, err)
		}
		return nil
	}
	return t.write(p, s.data)
}

func (t *tree) remove(p string) error {
	if err := t.root.Remove(p); err != nil {
		return fmt.Errorf("delete %s: %w", p, err)
	}
	return nil
}

// snapshot is a file's state at one moment.
type snapshot struct {
	data   []byte
	exists bool
}

func (t *tree) snap(p string) (snapshot, error) {
	b, ok, err := t.read(p)
	return snapshot{data: b, exists: ok}, err
}

// viaSymlink reports whether p is a symbolic link or lies under one. The
// coder never writes through links: a link inside the repository may point
// at a blocked path (docs/ci.yml → .github/workflows/ci.yml), and os.Root
// follows links that stay inside the root.
func (t *tree) viaSymlink(p string) bool {
	cur := ""
	for _, part := range strings.Split(cleanRel(p), "/") {
		cur = path.Join(cur, part)
		fi, err := t.root.Lstat(cur)
		if err != nil {
			return false // missing: nothing below it exists yet
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return true
		}
	}
	return false
}
