package coder

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The edits already made grow append-only: in the order the run changed
// the files (not sorted), each diff cut from its end, files past the
// budget named with their counts. What item k saw is a prefix of what item
// k+1 sees, as long as no later item changes an earlier item's file.
func TestDoneIsAppendOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	long := strings.Repeat("line\n", 300)
	for p, s := range map[string]string{"z.txt": "z\n", "a.txt": "a\n", "big.txt": long} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr := openTree(t, dir)
	l := newLedger()
	change := func(p, s string) string {
		t.Helper()
		if err := l.remember(tr, p); err != nil {
			t.Fatal(err)
		}
		if err := tr.write(p, []byte(s)); err != nil {
			t.Fatal(err)
		}
		d, err := l.done(tr)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	first := change("z.txt", "z2\n")
	second := change("a.txt", "a2\n")
	if !strings.HasPrefix(second, first) {
		t.Fatalf("the second item's view does not extend the first's:\n%s\n---\n%s", first, second)
	}
	if strings.Index(second, "+++ b/z.txt") > strings.Index(second, "+++ b/a.txt") {
		t.Errorf("files not in the order the run changed them:\n%s", second)
	}
	third := change("big.txt", strings.ReplaceAll(long, "line", "LINE"))
	if !strings.HasPrefix(third, second) {
		t.Fatalf("the third item's view does not extend the second's")
	}
	if !strings.Contains(third, "more lines of this diff not shown") || len(third)-len(second) > doneFileBytes+100 {
		t.Errorf("big.txt's diff not cut to its budget (%d bytes):\n%s", len(third)-len(second), third)
	}
	// Past the whole budget a file is named with its counts only.
	last := third
	for i := range 6 {
		p := fmt.Sprintf("more%d.txt", i)
		last = change(p, strings.Repeat(p+" "+strings.Repeat("x", 50)+"\n", 100))
	}
	if !strings.HasPrefix(last, third) || !strings.Contains(last, "more5.txt: +100 -0 lines (diff not shown") {
		t.Errorf("past the budget:\n%s", last[len(third):])
	}
	if len(last) > doneBytes+1000 {
		t.Errorf("done is %d bytes, budget %d", len(last), doneBytes)
	}
}
