package coder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLedgerChangeSet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mod.txt", "one\ntwo\nthree\n")
	write("gone.txt", "bye\n")
	write("same.txt", "same\n")
	tr, err := openTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.close()
	l := newLedger()
	for _, p := range []string{"mod.txt", "gone.txt", "same.txt", "sub/new.txt"} {
		if err := l.remember(tr, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.write("mod.txt", []byte("one\n2\nthree\n")); err != nil {
		t.Fatal(err)
	}
	if err := tr.remove("gone.txt"); err != nil {
		t.Fatal(err)
	}
	if err := tr.write("sub/new.txt", []byte("hello\nworld\n")); err != nil {
		t.Fatal(err)
	}
	// A second remember must not replace the original snapshot.
	if err := l.remember(tr, "mod.txt"); err != nil {
		t.Fatal(err)
	}
	cs, err := l.changeSet(tr)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]FileChange{}
	for _, f := range cs.Files {
		got[f.Path] = f
	}
	if len(cs.Files) != 3 {
		t.Fatalf("files = %v, want 3 (same.txt unchanged)", cs.Paths())
	}
	if f := got["mod.txt"]; f.Status != FileModified || f.Added != 1 || f.Removed != 1 ||
		!strings.Contains(f.Diff, "--- a/mod.txt\n+++ b/mod.txt\n") || !strings.Contains(f.Diff, "-two\n+2\n") {
		t.Errorf("mod.txt: %+v", f)
	}
	if f := got["gone.txt"]; f.Status != FileDeleted || f.Removed != 1 || !strings.Contains(f.Diff, "+++ /dev/null") {
		t.Errorf("gone.txt: %+v", f)
	}
	if f := got["sub/new.txt"]; f.Status != FileAdded || f.Added != 2 || !strings.Contains(f.Diff, "--- /dev/null") {
		t.Errorf("sub/new.txt: %+v", f)
	}
	if cs.Stat() != "3 files changed, 3 insertions(+), 2 deletions(-)" {
		t.Errorf("stat = %q", cs.Stat())
	}
	if !strings.HasPrefix(cs.Diff, "--- /dev/null") && !strings.HasPrefix(cs.Diff, "--- a/gone.txt") {
		t.Errorf("diff not in path order:\n%s", cs.Diff)
	}
}

func TestTreeConfinement(t *testing.T) {
	t.Parallel()
	tr, err := openTree(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.close()
	if err := tr.write("../escape.txt", []byte("x")); err == nil {
		t.Fatal("write outside the worktree succeeded")
	}
}
