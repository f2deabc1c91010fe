package coder

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/repo"
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
	tr := openTree(t, dir)
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
	tr := openTree(t, t.TempDir())
	if err := tr.write("../escape.txt", []byte("x")); err == nil {
		t.Fatal("write outside the worktree succeeded")
	}
}

// TestChangeSetDiffAppliesWithGit checks the change set is a patch git
// accepts: applied to the original files it gives the edited ones.
func TestChangeSetDiffAppliesWithGit(t *testing.T) {
	t.Parallel()
	orig := map[string]string{"a.txt": "one\ntwo\n", "noeol.txt": "x\ny", "gone.txt": "bye\n"}
	edited, pristine := t.TempDir(), t.TempDir()
	for _, dir := range []string{edited, pristine} {
		for p, s := range orig {
			if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tr := openTree(t, edited)
	l := newLedger()
	for _, p := range []string{"a.txt", "noeol.txt", "gone.txt", "dir/new.txt"} {
		if err := l.remember(tr, p); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(tr.write("a.txt", []byte("one\n2\nthree\n")))
	must(tr.write("noeol.txt", []byte("x\nz")))
	must(tr.remove("gone.txt"))
	must(tr.write("dir/new.txt", []byte("new\n")))
	cs, err := l.changeSet(tr)
	must(err)
	cmd := exec.Command("git", "apply", "-p1", "--unsafe-paths", "-")
	cmd.Dir = pristine
	cmd.Stdin = strings.NewReader(cs.Diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s\n%s", err, out, cs.Diff)
	}
	for _, p := range []string{"a.txt", "noeol.txt", "dir/new.txt"} {
		want, _ := os.ReadFile(filepath.Join(edited, p))
		got, err := os.ReadFile(filepath.Join(pristine, p))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s after git apply = %q (%v), want %q", p, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(pristine, "gone.txt")); !os.IsNotExist(err) {
		t.Errorf("gone.txt still there after git apply: %v", err)
	}
}

// openTree is the coder's tree over dir opened as a workspace (closed when
// the test ends), as a run gets it.
func openTree(t *testing.T, dir string) *tree {
	t.Helper()
	ws, err := repo.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return treeOf(t.Context(), ws)
}
