package edit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// applyOne writes before to dir/name (with mode), applies text and returns
// the report and the file's bytes afterwards.
func applyOne(t *testing.T, name string, before []byte, mode os.FileMode, text string, opts Options) (*Report, []byte, string) {
	t.Helper()
	dir := t.TempDir()
	full := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, before, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(full, mode); err != nil {
		t.Fatal(err)
	}
	rep, err := Apply(dir, text, opts)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	after, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	return rep, after, dir
}

func sr(path, search, replace string) string {
	return "<file-edit filePath=\"" + path + "\">\n------- SEARCH\n" + search + "=======\n" + replace + "+++++++ REPLACE\n</file-edit>\n"
}

// TestPreservation checks the bytes around an edit: line terminators, the
// final-newline state, a BOM and bytes that are not UTF-8.
func TestPreservation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		before, edit string
		want         string
	}{
		{"crlf file, lf edit", "a\r\nb\r\nc\r\n", sr("f", "b\n", "B\nB2\n"), "a\r\nB\r\nB2\r\nc\r\n"},
		{"lf file, crlf edit", "a\nb\nc\n", strings.ReplaceAll(sr("f", "b\n", "B\n"), "\n", "\r\n"), "a\nB\nc\n"},
		{"mixed endings keep their own", "a\r\nb\nc\r\nd\n", sr("f", "c\n", "C\n"), "a\r\nb\nC\r\nd\n"},
		{"no final newline, last line", "a\nb", sr("f", "b\n", "B\n"), "a\nB"},
		{"no final newline, append", "a\nb", sr("f", "b\n", "b\nc\n"), "a\nb\nc"},
		{"no final newline, delete last", "a\nb", sr("f", "b\n", ""), "a"},
		{"crlf without final newline", "a\r\nb", sr("f", "a\n", "A\n"), "A\r\nb"},
		{"bom kept", "\xef\xbb\xbfa\nb\n", sr("f", "a\n", "A\n"), "\xef\xbb\xbfA\nb\n"},
		{"bom file, edit on first line", "\xef\xbb\xbfpackage x\n", sr("f", "package x\n", "package y\n"), "\xef\xbb\xbfpackage y\n"},
		{"bom copied into SEARCH and REPLACE", "\xef\xbb\xbfa\nb\n", sr("f", "\xef\xbb\xbfa\n", "\xef\xbb\xbfA\n"), "\xef\xbb\xbfA\nb\n"},
		{"latin-1 bytes outside the match", "caf\xe9\nb\n", sr("f", "b\n", "B\n"), "caf\xe9\nB\n"},
		{"latin-1 bytes inside the match", "x = 'caf\xe9'\n", sr("f", "x = 'caf\xe9'\n", "x = 'cafe'\n"), "x = 'cafe'\n"},
		// The model was shown each byte that is not UTF-8 as U+FFFD (JSON
		// encoders write it so): its quote matches, and the lines it copies
		// or changes elsewhere keep the file's own bytes.
		{"latin-1 bytes quoted as shown", "caf\xe9\nna\xefve\nplain\n", sr("f", "caf\uFFFD\nna\uFFFDve\nplain\n", "caf\uFFFD\nna\uFFFDve\nPLAIN\n"), "caf\xe9\nna\xefve\nPLAIN\n"},
		{"latin-1 line changed as shown", "caf\xe9\nna\xefve\n", sr("f", "na\uFFFDve\n", "na\uFFFDVE\n"), "caf\xe9\nna\xefVE\n"},
		{"first line", "a\nb\n", sr("f", "a\n", "A\n"), "A\nb\n"},
		{"whole content replaced", "a\nb\n", sr("f", "a\nb\n", "c\n"), "c\n"},
		{"trailing spaces outside match kept", "a  \nb\n", sr("f", "b\n", "B\n"), "a  \nB\n"},
		{"tabs in go file stay tabs", "func f() {\n\tx := 1\n}\n", sr("f", "func f() {\n    x := 1\n", "func f() {\n    x := 2\n    y := 3\n"), "func f() {\n\tx := 2\n\ty := 3\n}\n"},
		{"python relative depth kept", "def f():\n    if x:\n        y()\n", sr("f", "if x:\n    y()\n", "if x:\n    y()\nelse:\n    z()\n"), "def f():\n    if x:\n        y()\n    else:\n        z()\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, after, _ := applyOne(t, "f", []byte(tt.before), 0o644, tt.edit, Options{})
			if !rep.OK() {
				t.Fatalf("not applied:\n%s", rep.Feedback())
			}
			if string(after) != tt.want {
				t.Errorf("got %q, want %q", after, tt.want)
			}
		})
	}
}

// TestModeKept checks that an executable keeps its mode and that no
// temporary file is left behind.
func TestModeKept(t *testing.T) {
	t.Parallel()
	rep, after, dir := applyOne(t, "run.sh", []byte("#!/bin/sh\necho a\n"), 0o755, sr("run.sh", "echo a\n", "echo b\n"), Options{})
	if !rep.OK() || string(after) != "#!/bin/sh\necho b\n" {
		t.Fatalf("got %q\n%s", after, rep.Feedback())
	}
	fi, err := os.Stat(filepath.Join(dir, "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, want 0755", fi.Mode().Perm())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("files left in root: %v", entries)
	}
}

// TestSymlinks checks that links leading outside the root are refused and
// nothing outside changes.
func TestSymlinks(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		sr("out/secret.txt", "keep\n", "gone\n"),
		sr("link.txt", "keep\n", "gone\n"),
		sr("out/new.txt", "", "x\n"),
	} {
		rep, err := Apply(root, text, Options{Partial: true})
		if err != nil {
			t.Fatalf("Apply: %v", err)
		}
		if rep.OK() || rep.Blocks[0].Reason != ReasonBadPath {
			t.Errorf("want bad_path refusal, got %+v", rep.Blocks)
		}
	}
	data, _ := os.ReadFile(secret)
	if string(data) != "keep\n" {
		t.Errorf("outside file changed: %q", data)
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Errorf("file created outside the root")
	}
}

// TestLargeFile applies blocks at the start, middle and end of a 20,000-line
// file and checks every other line is untouched.
func TestLargeFile(t *testing.T) {
	t.Parallel()
	src, lines := bigFile(20000)
	text := sr("big.go", lines[2]+"\n", "\t// first\n") +
		sr("big.go", lines[10001]+"\n"+lines[10002]+"\n", "\t// middle\n") +
		sr("big.go", lines[19998]+"\n", "\t// last\n")
	rep, after, _ := applyOne(t, "big.go", src, 0o644, text, Options{})
	if !rep.OK() {
		t.Fatalf("not applied:\n%s", rep.Feedback())
	}
	want := append([]string(nil), lines...)
	want[2] = "\t// first"
	want[10001] = "\t// middle"
	want = append(want[:10002], want[10003:]...)
	want[19997] = "\t// last"
	if got := strings.Split(strings.TrimSuffix(string(after), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("large file edited wrongly (%d lines, want %d)", len(got), len(want))
	}
}

// bigFile builds a Go-like file of n lines in which every line is unique.
func bigFile(n int) ([]byte, []string) {
	lines := make([]string, 0, n)
	lines = append(lines, "package big", "")
	for i := 0; len(lines) < n; i++ {
		lines = append(lines, "\tv"+strconv.Itoa(i)+" := compute("+strconv.Itoa(i*7)+", \"s"+strconv.Itoa(i)+"\")")
	}
	return []byte(strings.Join(lines, "\n") + "\n"), lines
}

// TestEmptyFile: an empty SEARCH and REPLACE create an empty file (a
// package's __init__.py, a .gitkeep); on an empty file they are already
// applied, on a file with content they are refused.
func TestEmptyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rep, err := Apply(dir, sr("pkg/__init__.py", "", ""), Options{})
	if err != nil || !rep.OK() {
		t.Fatalf("create: %v\n%s", err, rep.Feedback())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "pkg", "__init__.py")); err != nil || len(b) != 0 {
		t.Fatalf("created %q, %v; want an empty file", b, err)
	}
	rep, err = Apply(dir, sr("pkg/__init__.py", "", ""), Options{})
	if err != nil || !rep.OK() || rep.Blocks[0].Status != StatusAlreadyApplied {
		t.Fatalf("again: %v %+v", err, rep.Blocks)
	}
	rep, _, _ = applyOne(t, "f", []byte("a\n"), 0o644, sr("f", "", ""), Options{})
	if rep.OK() || rep.Blocks[0].Reason != ReasonMalformed {
		t.Fatalf("on a file with content: %+v", rep.Blocks)
	}
}

// TestNewScriptIsExecutable: a new file that starts with "#!" is written
// 0755, another new file 0644.
func TestNewScriptIsExecutable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rep, err := Apply(dir, sr("scripts/gen.sh", "", "#!/bin/sh\necho hi\n")+sr("scripts/notes.txt", "", "#notes\n"), Options{})
	if err != nil || !rep.OK() {
		t.Fatalf("%v\n%s", err, rep.Feedback())
	}
	for name, want := range map[string]os.FileMode{"scripts/gen.sh": 0o755, "scripts/notes.txt": 0o644} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want %v", name, fi.Mode().Perm(), err, want)
		}
	}
}
