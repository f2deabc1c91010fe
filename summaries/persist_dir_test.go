package summaries_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/issuesmith/issuesmith/summaries"
)

// LoadCached writes a snapshot per checkout, re-reads only changed files on
// the next call, and a cache folder that cannot be written costs nothing but
// the snapshot.
func TestLoadCachedReusesTheSnapshot(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package a\n\nfunc Alpha() {}\n")
	write("b.go", "package a\n\nfunc Beta() {}\n")
	past := time.Now().Add(-time.Hour) // outside the racy window, so the snapshot trusts them
	for _, name := range []string{"a.go", "b.go"} {
		if err := os.Chtimes(filepath.Join(dir, name), past, past); err != nil {
			t.Fatal(err)
		}
	}
	src := open(t, dir)
	ix, saveErr, err := LoadCached(t.Context(), src, cache, Options{})
	if err != nil || saveErr != nil {
		t.Fatalf("first load: %v, %v", err, saveErr)
	}
	if st := ix.LastStats(); st.Parsed != 2 {
		t.Fatalf("first load parsed %d files, want 2", st.Parsed)
	}
	if _, err := os.Stat(SnapshotFile(cache, dir)); err != nil {
		t.Fatalf("no snapshot written: %v", err)
	}
	write("b.go", "package a\n\nfunc Beta() int { return 1 }\n")
	ix, _, err = LoadCached(t.Context(), src, cache, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st := ix.LastStats(); st.Parsed != 1 {
		t.Errorf("second load parsed %d files, want only the changed one", st.Parsed)
	}
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ix, saveErr, err = LoadCached(t.Context(), src, filepath.Join(blocked, "cache"), Options{})
	if err != nil || ix == nil || saveErr == nil {
		t.Errorf("unwritable cache: index %v, save error %v, error %v; want an index and a save error", ix != nil, saveErr, err)
	}
}
