package repo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// toolFixture is a small repository with nested .gitignore files, vendored
// and generated trees, a binary and a long file.
func toolFixture(t *testing.T) *Workspace {
	t.Helper()
	dir := t.TempDir()
	var long strings.Builder
	for i := 1; i <= 600; i++ {
		fmt.Fprintf(&long, "line %d of the long file\n", i)
	}
	writeTree(t, dir, map[string]string{
		".gitignore":               "*.log\nbuild/\n!keep.log\n",
		".git/HEAD":                "ref: refs/heads/main\n",
		".git/info/exclude":        "local.txt\n",
		"local.txt":                "excluded by info/exclude\n",
		"main.go":                  "package main\n\nfunc main() {\n\tHello()\n}\n",
		"hello.go":                 "package main\n\n// Hello greets.\nfunc Hello() {\n\tprintln(\"hello\")\n}\n",
		"debug.log":                "ignored\n",
		"keep.log":                 "kept by negation\n",
		"build/out.txt":            "ignored folder\n",
		"vendor/x/x.go":            "package x // Hello\n",
		"node_modules/m/index.js":  "Hello\n",
		"pkg/a/a.go":               "package a\n\nfunc Hello() {}\n",
		"pkg/a/.gitignore":         "gen_*.go\n",
		"pkg/a/gen_types.go":       "package a // Hello generated\n",
		"pkg/a/deep/b/c.go":        "package c\n",
		"pkg/a/deep/b/d.go":        "package c\n",
		"pkg/a/a_test.go":          "package a // Hello test\n",
		"pkg/other/gen_keep.go":    "package other // gen_ only ignored under pkg/a\n",
		"docs/long.txt":            long.String(),
		"docs/image.png":           "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR Hello",
		"docs/crlf.txt":            "one\r\ntwo\r\n",
		"docs/minified.js":         strings.Repeat("x", 1000) + "\n",
		"docs/empty.txt":           "",
		"docs/latin1.txt":          "caf\xe9 cr\xe8me\n",
		"testdata/fixture.go":      "package testdata // Hello\n",
		"testdata/more/deep.go":    "package more // Hello\n",
		"cmd/tool/main.go":         "package main // Hello\n",
		"cmd/tool/internal/i.go":   "package internal // Hello\n",
		"pkg/a/deep/b/.gitignore":  "d.go\n",
		"pkg/a/deep/b/notes.md":    "hello in lower case\n",
		"pkg/a/deep/b/UPPER.md":    "HELLO IN UPPER CASE\n",
		"pkg/a/deep/b/regex.md":    "a+b (literal)\n",
		"pkg/a/deep/b/unicode.txt": "héllo wörld\n",
	})
	ws, err := OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	return ws
}

func TestFilesHonoursIgnores(t *testing.T) {
	t.Parallel()
	ws := toolFixture(t)
	files, err := ws.Files(t.Context())
	require.NoError(t, err)
	require.Contains(t, files, "keep.log", "negated pattern")
	require.Contains(t, files, "pkg/other/gen_keep.go", "nested .gitignore applies only to its folder")
	require.Contains(t, files, "pkg/a/deep/b/c.go")
	for _, gone := range []string{
		"debug.log", "build/out.txt", "vendor/x/x.go", "node_modules/m/index.js", ".git/HEAD",
		"pkg/a/gen_types.go", "pkg/a/deep/b/d.go", "local.txt",
	} {
		require.NotContains(t, files, gone)
	}
	require.IsIncreasing(t, files)
}

func TestListDir(t *testing.T) {
	t.Parallel()
	ws := toolFixture(t)
	out, err := ws.ListDir(t.Context(), ListDirParams{Depth: 1})
	require.NoError(t, err)
	require.Contains(t, out, "pkg/ (10 files, 4 folders)")
	require.Contains(t, out, "docs/ (6 files)")
	require.NotContains(t, out, "vendor")
	require.NotContains(t, out, "node_modules")
	require.NotContains(t, out, "build")
	require.NotContains(t, out, ".git/")
	require.Contains(t, out, "\nmain.go\n")

	out, err = ws.ListDir(t.Context(), ListDirParams{Path: "pkg/a", Depth: 2})
	require.NoError(t, err)
	require.Equal(t, "pkg/a: 9 files, 2 folders (showing 2 levels)\n"+
		"deep/\n  b/ (6 files)\n.gitignore\na.go\na_test.go\n", out)

	out, err = ws.ListDir(t.Context(), ListDirParams{Path: "./vendor"})
	require.NoError(t, err, "a skipped folder can still be listed on purpose")
	require.Contains(t, out, "x/")

	_, err = ws.ListDir(t.Context(), ListDirParams{Path: "nope"})
	require.ErrorIs(t, err, ErrNotExist)
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	ws := toolFixture(t)
	ctx := t.Context()
	tests := []struct {
		name     string
		params   ReadFileParams
		contains []string
		absent   []string
	}{
		{"first window", ReadFileParams{Path: "docs/long.txt"},
			[]string{"docs/long.txt — lines 1–250 of 600\n", "  1\tline 1 of", "250\tline 250 of",
				"(350 more lines; call read_file with offset=251 to read lines 251–500)"},
			[]string{"line 251 "}},
		{"limit capped", ReadFileParams{Path: "docs/long.txt", Offset: 300, Limit: 1000},
			[]string{"lines 300–549 of 600", "300\tline 300 of", "offset=550"}, []string{"line 550 "}},
		{"last window", ReadFileParams{Path: "docs/long.txt", Offset: 590, Limit: 20},
			[]string{"lines 590–600 of 600", "600\tline 600 of", "(end of file)"}, nil},
		{"past end", ReadFileParams{Path: "docs/long.txt", Offset: 601},
			[]string{"has 600 lines; offset 601 is past the end"}, nil},
		{"small", ReadFileParams{Path: "hello.go"},
			[]string{"hello.go — lines 1–6 of 6\n1\tpackage main\n", "(end of file)"}, nil},
		{"binary", ReadFileParams{Path: "docs/image.png"},
			[]string{"binary file (image/png"}, []string{"IHDR"}},
		{"crlf", ReadFileParams{Path: "docs/crlf.txt"}, []string{"1\tone\n2\ttwo\n"}, []string{"\r"}},
		{"long line clipped", ReadFileParams{Path: "docs/minified.js"}, []string{"… [600 more characters]"}, nil},
		{"empty", ReadFileParams{Path: "docs/empty.txt"}, []string{"empty file (0 lines)"}, nil},
		{"latin1 is text", ReadFileParams{Path: "docs/latin1.txt"}, []string{"1\tcaf"}, []string{"binary"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := ws.ReadFile(ctx, tt.params)
			require.NoError(t, err)
			for _, s := range tt.contains {
				require.Contains(t, out, s)
			}
			for _, s := range tt.absent {
				require.NotContains(t, out, s)
			}
		})
	}
	_, err := ws.ReadFile(ctx, ReadFileParams{Path: "docs"})
	require.ErrorIs(t, err, ErrIsDir)
}

func TestReadFileHuge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "huge.csv"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(MaxReadBytes+1))
	require.NoError(t, f.Close())
	ws, err := OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	out, err := ws.ReadFile(t.Context(), ReadFileParams{Path: "huge.csv"})
	require.NoError(t, err)
	require.Equal(t, "huge.csv: 8.0 MB, too large to read here (limit 8.0 MB); use grep to find the lines you need.\n", out)
}

func TestGrep(t *testing.T) {
	t.Parallel()
	ws := toolFixture(t)
	tests := []struct {
		name     string
		params   GrepParams
		contains []string
		absent   []string
	}{
		{"regex over repo", GrepParams{Pattern: `func Hello\(`},
			[]string{"2 matches in 2 files", "hello.go:4: func Hello() {", "pkg/a/a.go:3: func Hello() {}"},
			[]string{"vendor", "gen_types"}},
		{"literal", GrepParams{Pattern: "a+b (literal)", Literal: true}, []string{"regex.md:1: a+b (literal)"}, nil},
		{"case sensitive by default", GrepParams{Pattern: "hello in", Path: "pkg"},
			[]string{"1 match in 1 file", "notes.md:1:"}, []string{"UPPER.md"}},
		{"ignore case", GrepParams{Pattern: "hello in", IgnoreCase: true, Path: "pkg"},
			[]string{"2 matches in 2 files", "UPPER.md:1: HELLO IN UPPER CASE"}, nil},
		{"unicode ignore case", GrepParams{Pattern: "HÉLLO", IgnoreCase: true, Literal: true}, []string{"unicode.txt:1:"}, nil},
		{"include basename glob", GrepParams{Pattern: "Hello", Include: []string{"*.md"}, IgnoreCase: true},
			[]string{"UPPER.md", "notes.md"}, []string{".go:"}},
		{"include path glob", GrepParams{Pattern: "Hello", Include: []string{"cmd/**/*.go"}},
			[]string{"2 matches in 2 files", "cmd/tool/main.go:1:", "cmd/tool/internal/i.go:1:"}, nil},
		{"exclude folder and tests", GrepParams{Pattern: "Hello", Include: []string{"*.go"}, Exclude: []string{"testdata", "*_test.go", "cmd/"}},
			[]string{"hello.go:", "main.go:4:"}, []string{"testdata", "a_test.go", "cmd/tool"}},
		{"context", GrepParams{Pattern: "Hello", Path: "hello.go", Context: 1},
			[]string{"hello.go-2- \nhello.go:3: // Hello greets.\nhello.go:4: func Hello() {\nhello.go-5- \tprintln(\"hello\")\n"}, nil},
		{"single ignored file still searched", GrepParams{Pattern: "ignored", Path: "debug.log"}, []string{"debug.log:1: ignored"}, nil},
		{"binary skipped", GrepParams{Pattern: "IHDR", Path: "docs"}, []string{"no matches", "1 binary file skipped"}, nil},
		{"crlf", GrepParams{Pattern: "^two$", Path: "docs"}, []string{"crlf.txt:2: two"}, nil},
		{"anchors are per line", GrepParams{Pattern: `^func`, Path: "hello.go"}, []string{"hello.go:4:"}, nil},
		{"no match", GrepParams{Pattern: "zzz-nothing"}, []string{"no matches for `zzz-nothing` in the repository"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := ws.Grep(t.Context(), tt.params)
			require.NoError(t, err)
			for _, s := range tt.contains {
				require.Contains(t, out, s)
			}
			for _, s := range tt.absent {
				require.NotContains(t, out, s)
			}
		})
	}
	for _, bad := range []GrepParams{{Pattern: "("}, {Pattern: ""}, {Pattern: "x", Include: []string{"[a"}}} {
		_, err := ws.Grep(t.Context(), bad)
		require.ErrorIs(t, err, ErrBadArgument)
	}
}

func TestGrepCapsMatches(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("f%02d.txt", i)] = "needle\nhay\nneedle\nneedle\n"
	}
	writeTree(t, dir, files)
	ws, err := OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	out, err := ws.Grep(t.Context(), GrepParams{Pattern: "needle"})
	require.NoError(t, err)
	require.Equal(t, 50, strings.Count(out, ": needle"))
	require.Contains(t, out, "90 matches in 30 files")
	require.Contains(t, out, "(40 more matches not shown; 13 files with matches not shown at all;")
	require.Contains(t, out, "f16.txt:3: needle\n(")
	out, err = ws.Grep(t.Context(), GrepParams{Pattern: "needle", MaxMatches: 2})
	require.NoError(t, err)
	require.Equal(t, 2, strings.Count(out, ": needle"))
}

func TestOwnTree(t *testing.T) {
	t.Parallel()
	ws, err := OpenWorkspace("..")
	require.NoError(t, err)
	defer ws.Close()
	files, err := ws.Files(t.Context())
	require.NoError(t, err)
	require.Contains(t, files, "go.mod")
	require.Contains(t, files, "repo/workspace.go")
	out, err := ws.Grep(t.Context(), GrepParams{Pattern: "func OpenWorkspace(", Literal: true, Include: []string{"*.go"}})
	require.NoError(t, err)
	require.Contains(t, out, "repo/workspace.go:")
}
