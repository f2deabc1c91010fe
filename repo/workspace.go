package repo

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// Workspace is a read-only view of one checkout, confined to its root with
// os.Root: no operation reads outside the directory it was opened on, whatever
// path or symlink it is given. A Workspace is safe for concurrent use; the
// files under it may change between calls (the coder edits them), and every
// call sees the tree as it is at that moment.
type Workspace struct {
	dir  string
	root *os.Root
	// gitDir is the checkout's git directory when it lives apart from the
	// tree (a Worktree's); "" lets git find it from dir (a local checkout).
	gitDir string
	// key names the repository by the bot's own record (SetRepository).
	key string
	// base is the commit the checkout started from (a Worktree's Start);
	// "" is HEAD (a local checkout).
	base string

	subOnce sync.Once // Submodules
	subs    []string
	subSet  map[string]bool
}

// OpenWorkspace opens dir (which must be an existing directory) as a
// Workspace. The caller should Close it when the run ends.
func OpenWorkspace(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	// Resolve symlinks in the root itself (e.g. /tmp -> /private/tmp) so Dir
	// names the real directory the confinement applies to.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	return &Workspace{dir: abs, root: root}, nil
}

// SetRepository records which repository this checkout is, by the bot's
// own record of it (installation, owner and name; an instance's
// repository in bot replay) — never by anything in the tree. Callers key
// per-repository caches by it (Repository).
func (w *Workspace) SetRepository(key string) { w.key = key }

// Repository is the key SetRepository recorded; for a checkout opened
// without one it is "local:" and the absolute directory (a user's own
// checkout under bot solve: the path is the user's choice, not the
// tree's).
func (w *Workspace) Repository() string {
	if w.key != "" {
		return w.key
	}
	return "local:" + w.dir
}

// CommittedFile is the file at p (slash, repo-relative) as the checkout's
// start commit holds it, read from git (a Worktree's start, a local
// checkout's HEAD) — never from the tree, which the commands a run starts
// can rewrite. A file the commit lacks is an error.
func (w *Workspace) CommittedFile(ctx context.Context, p string) ([]byte, error) {
	rel, err := Clean(p)
	if err != nil {
		return nil, err
	}
	rev := w.base
	if rev == "" {
		rev = "HEAD"
	}
	res, err := w.git().run(ctx, "show", "--no-textconv", rev+":"+rel)
	if err != nil {
		return nil, fmt.Errorf("committed %s: %w", rel, err)
	}
	return []byte(res.stdout), nil
}

// git is a git command on this checkout.
func (w *Workspace) git() gitCmd {
	if w.gitDir == "" {
		return gitCmd{dir: w.dir}
	}
	return gitCmd{dir: w.dir, gitDir: w.gitDir, workTree: w.dir}
}

// Dir returns the absolute path of the workspace root.
func (w *Workspace) Dir() string { return w.dir }

// Root returns the workspace's confined handle on its directory. It is the
// one os.Root of a checkout: the coder writes through it and the edit engine
// applies through it, so every read and write of a run is confined by the
// same handle. It is valid until Close; the caller must not close it.
func (w *Workspace) Root() *os.Root { return w.root }

// Close releases the root directory handle (a Workspace that is dropped
// without Close releases it when garbage collected). Calls after Close fail.
func (w *Workspace) Close() error { return w.root.Close() }

// Clean turns a path given by a model or a user into a clean repo-relative
// slash path ("." for the root). It refuses absolute paths and paths that
// climb out with ".." with ErrOutsideRoot; symlinks are checked when the path
// is opened.
func Clean(p string) (string, error) {
	orig := p
	p = strings.TrimSpace(p)
	if p == "" {
		return ".", nil
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%q: path contains a NUL byte: %w", orig, ErrNotExist)
	}
	if path.IsAbs(p) || filepath.IsAbs(p) {
		return "", outside(orig, "absolute paths are not allowed")
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", outside(orig, "it climbs above the repository root with \"..\"")
	}
	return c, nil
}

// Files lists the repository's regular files as sorted repo-relative slash
// paths, honouring .gitignore files (nested ones too) and .git/info/exclude,
// and skipping .git, vendor/, node_modules/ and git submodules. Symlinks are
// not listed.
func (w *Workspace) Files(ctx context.Context) ([]string, error) {
	var files []string
	err := w.walk(ctx, ".", func(rel string, d fs.DirEntry) error {
		if d.Type().IsRegular() {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	return files, nil
}

// MaxFileBytes is the largest file ReadBytes returns: the repository's
// content is untrusted, and a huge file must not exhaust the bot's memory.
const MaxFileBytes = 32 << 20

// ReadBytes returns the whole content of the file at the repo-relative path p.
// It fails with ErrOutsideRoot, ErrNotExist, ErrIsDir or ErrSubmodule for
// model-fixable mistakes, and with ErrBadArgument for a file over MaxFileBytes.
func (w *Workspace) ReadBytes(p string) ([]byte, error) {
	rel, err := Clean(p)
	if err != nil {
		return nil, err
	}
	if err := w.checkSubmodule(rel); err != nil {
		return nil, err
	}
	f, err := w.open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, classify(rel, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%q: %w", rel, ErrIsDir)
	}
	if st.Size() > MaxFileBytes {
		return nil, tooLarge(rel, st.Size())
	}
	// The limit holds even for a file that grows while it is read.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", rel, err)
	}
	if len(data) > MaxFileBytes {
		return nil, tooLarge(rel, int64(len(data)))
	}
	return data, nil
}

func tooLarge(rel string, size int64) error {
	return fmt.Errorf("%q: %s is over the %s limit for reading a whole file (use grep or read_file): %w",
		rel, humanSize(size), humanSize(MaxFileBytes), ErrBadArgument)
}

// open opens a clean relative path under the root, mapping errors to the
// package's sentinels.
func (w *Workspace) open(rel string) (*os.File, error) {
	f, err := w.root.Open(rel)
	if err != nil {
		return nil, classify(rel, err)
	}
	return f, nil
}

// stat stats a clean relative path under the root, following symlinks that
// stay inside it.
func (w *Workspace) stat(rel string) (fs.FileInfo, error) {
	st, err := w.root.Stat(rel)
	if err != nil {
		return nil, classify(rel, err)
	}
	return st, nil
}
