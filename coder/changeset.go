package coder

import (
	"fmt"
	"sort"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// File change statuses.
const (
	FileAdded    = "added"
	FileModified = "modified"
	FileDeleted  = "deleted"
)

// FileChange is one file of the change set.
type FileChange struct {
	Path    string `json:"path"`
	Status  string `json:"status"` // FileAdded, FileModified or FileDeleted
	Added   int    `json:"added"`  // lines added
	Removed int    `json:"removed"`
	Diff    string `json:"diff"` // unified diff of this file (a/ and b/ labels)
}

// ChangeSet is what a run changed in the worktree, relative to the state
// before the run.
type ChangeSet struct {
	Files []FileChange `json:"files"`
	// Diff is the whole change as one unified diff, files in path order.
	Diff string `json:"diff"`
}

// Empty reports whether the run changed nothing.
func (c *ChangeSet) Empty() bool { return len(c.Files) == 0 }

// Stat is git's diffstat summary, singular where git says it: "3 files
// changed, 12 insertions(+), 1 deletion(-)".
func (c *ChangeSet) Stat() string {
	add, del := 0, 0
	for _, f := range c.Files {
		add += f.Added
		del += f.Removed
	}
	return fmt.Sprintf("%d %s changed, %d %s(+), %d %s(-)", len(c.Files), plural(len(c.Files), "file"),
		add, plural(add, "insertion"), del, plural(del, "deletion"))
}

// plural is word with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// Paths lists the changed paths (for git add / git rm).
func (c *ChangeSet) Paths() []string {
	out := make([]string, 0, len(c.Files))
	for _, f := range c.Files {
		out = append(out, f.Path)
	}
	return out
}

// ledger remembers each file's content from before its first change in the
// run, so the change set is always relative to where the run started.
type ledger struct {
	orig  map[string]snapshot
	order []string
}

func newLedger() *ledger { return &ledger{orig: map[string]snapshot{}} }

// remember snapshots p unless it was snapshotted already.
func (l *ledger) remember(t *tree, p string) error {
	if _, ok := l.orig[p]; ok {
		return nil
	}
	s, err := t.snap(p)
	if err != nil {
		return err
	}
	l.orig[p] = s
	l.order = append(l.order, p)
	return nil
}

// changeSet diffs every remembered file against its current content.
func (l *ledger) changeSet(t *tree) (ChangeSet, error) {
	paths := append([]string(nil), l.order...)
	sort.Strings(paths)
	var cs ChangeSet
	files, err := l.changes(t, paths)
	if err != nil {
		return cs, err
	}
	var all strings.Builder
	for _, fc := range files {
		all.WriteString(fc.Diff)
	}
	cs.Files, cs.Diff = files, all.String()
	return cs, nil
}

// changes diffs each of paths (remembered files) against its current
// content, in the given order, leaving out the unchanged ones.
func (l *ledger) changes(t *tree, paths []string) ([]FileChange, error) {
	var out []FileChange
	for _, p := range paths {
		after, err := t.snap(p)
		if err != nil {
			return nil, err
		}
		if fc, ok := diffFile(p, l.orig[p], after); ok {
			out = append(out, fc)
		}
	}
	return out, nil
}

// diffFile renders one file's change; ok is false when nothing changed.
func diffFile(p string, before, after snapshot) (FileChange, bool) {
	if before.exists == after.exists && string(before.data) == string(after.data) {
		return FileChange{}, false
	}
	fc := FileChange{Path: p, Status: FileModified}
	from, to := "a/"+p, "b/"+p
	switch {
	case !before.exists:
		fc.Status, from = FileAdded, "/dev/null"
	case !after.exists:
		fc.Status, to = FileDeleted, "/dev/null"
	}
	d := udiff.Unified(from, to, string(before.data), string(after.data))
	if d == "" && before.exists != after.exists {
		// An empty file created or deleted: no hunks, but still a change.
		d = fmt.Sprintf("--- %s\n+++ %s\n", from, to)
	}
	fc.Diff = d
	lines := strings.Split(d, "\n")
	for _, l := range lines[min(2, len(lines)):] { // skip the ---/+++ header
		switch {
		case strings.HasPrefix(l, "+"):
			fc.Added++
		case strings.HasPrefix(l, "-"):
			fc.Removed++
		}
	}
	return fc, true
}
