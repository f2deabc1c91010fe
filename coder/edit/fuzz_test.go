package edit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// seedEdits returns the edits of the golden cases with their first file, so
// the fuzzers start from every format and edge case (and run as normal tests).
func seedEdits(f *testing.F) [][2]string {
	paths, err := filepath.Glob(filepath.Join("testdata", "cases", "*.txt"))
	if err != nil {
		f.Fatal(err)
	}
	var out [][2]string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		var edit, file string
		for _, s := range parseArchive(string(data)) {
			switch {
			case s.name == "edit":
				edit = s.body
			case strings.HasPrefix(s.name, "file ") && file == "":
				file = s.body
			}
		}
		out = append(out, [2]string{file, edit})
	}
	return out
}

// FuzzParse checks that no input makes the parser panic and that every
// block it returns is numbered and carries a known problem, if any.
func FuzzParse(f *testing.F) {
	for _, s := range seedEdits(f) {
		f.Add(s[1])
	}
	f.Add("*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n")
	f.Add("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n")
	f.Fuzz(func(t *testing.T, text string) {
		edits, err := Parse(text, ParseOptions{Path: "f.txt"})
		if err != nil {
			return
		}
		for i, e := range edits {
			if e.Index != i+1 {
				t.Fatalf("edit %d has index %d", i, e.Index)
			}
			switch e.Problem {
			case ReasonNone, ReasonIncomplete, ReasonMalformed:
			default:
				t.Fatalf("unexpected problem %q", e.Problem)
			}
			if e.pairs != nil && len(e.pairs) != len(e.Replace) {
				t.Fatalf("pairs %d for %d replace lines", len(e.pairs), len(e.Replace))
			}
		}
	})
}

// FuzzApply applies arbitrary edits to an arbitrary file and checks the
// engine's promises: no panic, nothing written outside the root, a file
// whose blocks were all refused keeps its bytes, and an atomic apply that
// refuses anything writes nothing.
func FuzzApply(f *testing.F) {
	for _, s := range seedEdits(f) {
		f.Add([]byte(s[0]), s[1], false)
		f.Add([]byte(s[0]), s[1], true)
	}
	f.Fuzz(func(t *testing.T, file []byte, text string, partial bool) {
		base := t.TempDir()
		root := filepath.Join(base, "root")
		outside := filepath.Join(base, "outside")
		for _, d := range []string{filepath.Join(root, "sub"), outside} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		files := map[string][]byte{"f.txt": file, "sub/g.txt": []byte("one\ntwo\n")}
		for p, b := range files {
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(p)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		rep, err := Apply(root, text, Options{Path: "f.txt", Partial: partial})
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("Apply took %v", d)
		}
		if err != nil {
			return // our own failure (e.g. an unwritable path), reported as an error
		}
		entries, _ := os.ReadDir(outside)
		data, _ := os.ReadFile(filepath.Join(outside, "secret"))
		if len(entries) != 1 || string(data) != "s" {
			t.Fatalf("outside the root changed: %v %q", entries, data)
		}
		if !partial && !rep.OK() && rep.Written {
			t.Fatalf("atomic apply wrote files although a block was refused")
		}
		applied := map[string]bool{}
		for _, b := range rep.Blocks {
			if b.Status == StatusApplied {
				applied[b.Path] = true
			}
		}
		for p, want := range files {
			got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
			changed := err != nil || !bytes.Equal(got, want)
			if changed && (!applied[p] || !rep.Written) {
				t.Fatalf("%s changed although none of its blocks applied (written=%v)\n%s", p, rep.Written, rep.Feedback())
			}
		}
	})
}
