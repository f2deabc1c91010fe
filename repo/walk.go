package repo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// skipDirs are directory names never descended into below the walk's start:
// git's own data and vendored dependency trees.
var skipDirs = map[string]bool{".git": true, "vendor": true, "node_modules": true}

// ignorer holds the .gitignore patterns met so far in a walk. Patterns carry
// their directory as domain, so patterns from a sibling directory never match
// and the append order (ancestors first) gives deeper files priority, as git
// does.
type ignorer struct {
	patterns []gitignore.Pattern
}

// ignored reports whether the repo-relative slash path is ignored.
func (ig *ignorer) ignored(rel string, isDir bool) bool {
	if len(ig.patterns) == 0 || rel == "." {
		return false
	}
	parts := strings.Split(rel, "/")
	for i := len(ig.patterns) - 1; i >= 0; i-- {
		switch ig.patterns[i].Match(parts, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}

// load reads the ignore file at file (repo-relative) whose patterns apply
// under dir. A missing or unreadable file adds nothing.
func (ig *ignorer) load(w *Workspace, dir, file string) {
	data, err := w.root.ReadFile(file)
	if err != nil {
		return
	}
	var domain []string
	if dir != "." {
		domain = strings.Split(dir, "/")
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ig.patterns = append(ig.patterns, gitignore.ParsePattern(line, domain))
	}
}

// newIgnorer loads the patterns that apply to start: .git/info/exclude and
// the .gitignore of the root and of every ancestor of start (start's own is
// loaded by the walk).
func (w *Workspace) newIgnorer(start string) *ignorer {
	ig := &ignorer{}
	ig.load(w, ".", ".git/info/exclude")
	if start == "." {
		return ig
	}
	ig.load(w, ".", ".gitignore")
	parts := strings.Split(start, "/")
	for i := 1; i < len(parts); i++ {
		dir := path.Join(parts[:i]...)
		ig.load(w, dir, dir+"/.gitignore")
	}
	return ig
}

// errSkipRest stops a walk early without an error.
var errSkipRest = errors.New("skip rest")

// walk visits start (a clean relative path) and everything below it in
// lexical order, skipping ignored entries and skipDirs below start. A git
// submodule's folder is visited but never entered; a start in a submodule is
// ErrSubmodule. Symlinks are reported but never followed. fn may return
// fs.SkipDir for a directory, or errSkipRest to end the walk.
func (w *Workspace) walk(ctx context.Context, start string, fn func(rel string, d fs.DirEntry) error) error {
	if err := w.checkSubmodule(start); err != nil {
		return err
	}
	ig := w.newIgnorer(start)
	err := fs.WalkDir(w.root.FS(), start, func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			if rel == start {
				return classify(start, err)
			}
			return nil // an unreadable entry below start is skipped
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if rel != start {
			if d.IsDir() && skipDirs[d.Name()] {
				return fs.SkipDir
			}
			if ig.ignored(rel, d.IsDir()) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
		}
		if d.IsDir() && w.isSubmodule(rel) {
			if err := fn(rel, d); err != nil {
				return err
			}
			return fs.SkipDir
		}
		if d.IsDir() {
			ig.load(w, rel, path.Join(rel, ".gitignore"))
		}
		return fn(rel, d)
	})
	if errors.Is(err, errSkipRest) {
		return nil
	}
	return err
}

// with returns a copy of ig plus the patterns of dir's .gitignore; ig itself
// is unchanged, as sibling directories share it.
func (ig *ignorer) with(w *Workspace, dir string) *ignorer {
	next := &ignorer{patterns: append([]gitignore.Pattern(nil), ig.patterns...)}
	next.load(w, dir, path.Join(dir, ".gitignore"))
	return next
}
