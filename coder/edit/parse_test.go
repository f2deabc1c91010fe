package edit

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parsed is the part of an Edit the parser tests compare.
type parsed struct {
	Path    string
	Format  Format
	Op      Op
	Search  []string
	Replace []string
	Hint    int
	Anchors []string
	AtEOF   bool
	MoveTo  string
	Problem Reason
}

func summarize(edits []Edit) []parsed {
	out := make([]parsed, len(edits))
	for i, e := range edits {
		out[i] = parsed{e.Path, e.Format, e.Op, e.Search, e.Replace, e.Hint, e.Anchors, e.AtEOF, e.MoveTo, e.Problem}
	}
	return out
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		opts ParseOptions
		want []parsed
	}{
		{
			name: "file-edit with two blocks",
			text: "<file-edit filePath=\"a.go\">\n------- SEARCH\nx\n=======\ny\n+++++++ REPLACE\n------- SEARCH\np\n=======\n+++++++ REPLACE\n</file-edit>\n",
			want: []parsed{
				{Path: "a.go", Format: FormatSearchReplace, Op: OpReplace, Search: []string{"x"}, Replace: []string{"y"}},
				{Path: "a.go", Format: FormatSearchReplace, Op: OpReplace, Search: []string{"p"}},
			},
		},
		{
			name: "aider blocks under path lines, fences with language tags",
			text: "first.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n\n**src/second.ts**\n```ts\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n```\n",
			want: []parsed{
				{Path: "first.py", Format: FormatSearchReplace, Op: OpReplace, Search: []string{"a"}, Replace: []string{"b"}},
				{Path: "src/second.ts", Format: FormatSearchReplace, Op: OpReplace, Search: []string{"c"}, Replace: []string{"d"}},
			},
		},
		{
			name: "bare block takes the default path",
			text: "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n",
			opts: ParseOptions{Path: "x.txt"},
			want: []parsed{{Path: "x.txt", Format: FormatSearchReplace, Op: OpReplace, Search: []string{"a"}, Replace: []string{"b"}}},
		},
		{
			name: "start_line hint",
			text: "<<<<<<< SEARCH\n:start_line:12\n-------\na\n=======\nb\n>>>>>>> REPLACE\n",
			want: []parsed{{Format: FormatSearchReplace, Op: OpReplace, Search: []string{"a"}, Replace: []string{"b"}, Hint: 12}},
		},
		{
			name: "missing separator",
			text: "------- SEARCH\na\n+++++++ REPLACE\n",
			want: []parsed{{Format: FormatSearchReplace, Op: OpReplace, Search: []string{"a"}, Problem: ReasonMalformed}},
		},
		{
			name: "new SEARCH inside an open block",
			text: "------- SEARCH\na\n------- SEARCH\nb\n=======\nc\n+++++++ REPLACE\n",
			want: []parsed{
				{Format: FormatSearchReplace, Op: OpReplace, Search: []string{"a"}, Problem: ReasonMalformed},
				{Format: FormatSearchReplace, Op: OpReplace, Search: []string{"b"}, Replace: []string{"c"}},
			},
		},
		{
			name: "cut off in REPLACE",
			text: "------- SEARCH\na\n=======\nb",
			want: []parsed{{Format: FormatSearchReplace, Op: OpReplace, Search: []string{"a"}, Replace: []string{"b"}, Problem: ReasonIncomplete}},
		},
		{
			name: "six dashes is not a marker",
			text: "------ SEARCH\na\n======\nb\n++++++ REPLACE\n",
			want: nil,
		},
		{
			name: "codex patch",
			text: "*** Begin Patch\n*** Update File: a.py\n@@ class A:\n@@     def f(self):\n-        return 1\n+        return 2\n*** End of File\n*** Add File: b.py\n+x = 1\n*** Delete File: c.py\n*** End Patch\n",
			want: []parsed{
				{Path: "a.py", Format: FormatPatch, Op: OpReplace, Search: []string{"        return 1"}, Replace: []string{"        return 2"}, Anchors: []string{"class A:", "def f(self):"}, AtEOF: true},
				{Path: "b.py", Format: FormatPatch, Op: OpCreate, Replace: []string{"x = 1"}},
				{Path: "c.py", Format: FormatPatch, Op: OpDelete},
			},
		},
		{
			name: "unified diff with counts",
			text: "diff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\n+++ b/x.go\n@@ -3,3 +3,3 @@ func f() {\n a\n-b\n+B\n c\n@@ -10 +10 @@\n-z\n+Z\n",
			want: []parsed{
				{Path: "x.go", Format: FormatDiff, Op: OpReplace, Search: []string{"a", "b", "c"}, Replace: []string{"a", "B", "c"}, Hint: 3},
				{Path: "x.go", Format: FormatDiff, Op: OpReplace, Search: []string{"z"}, Replace: []string{"Z"}, Hint: 10},
			},
		},
		{
			name: "unified diff cut off",
			text: "--- a/x.go\n+++ b/x.go\n@@ -1,3 +1,3 @@\n a\n-b\n",
			want: []parsed{{Path: "x.go", Format: FormatDiff, Op: OpReplace, Search: []string{"a", "b"}, Replace: []string{"a"}, Hint: 1, Problem: ReasonIncomplete}},
		},
		{
			name: "lazy file-edit",
			text: "<file-edit filePath=\"a.go\" mode=\"lazy\">\n```go\n// ... existing code ...\nfunc f() {}\n```\n</file-edit>\n",
			want: []parsed{{Path: "a.go", Format: FormatLazy, Op: OpLazy, Replace: []string{"// ... existing code ...", "func f() {}"}}},
		},
		{
			name: "whole file forced",
			text: "```go\npackage a\n```\n",
			opts: ParseOptions{Path: "a.go", Format: FormatWhole},
			want: []parsed{{Path: "a.go", Format: FormatWhole, Op: OpWhole, Replace: []string{"package a"}}},
		},
		{
			name: "format restriction ignores other formats",
			text: "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n",
			opts: ParseOptions{Format: FormatDiff},
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			edits, err := Parse(tt.text, tt.opts)
			if tt.want == nil {
				if !errors.Is(err, ErrNoEdits) {
					t.Fatalf("want ErrNoEdits, got %v (%+v)", err, edits)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, summarize(edits)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestLazyMarker(t *testing.T) {
	t.Parallel()
	for _, l := range []string{"// ... existing code ...", "    # ... existing code ...", "/* ... existing code ... */", "<!-- ... existing code ... -->", "// ...existing code...", "// … existing code …"} {
		if !isLazyMarker(l) {
			t.Errorf("%q should be a marker", l)
		}
	}
	for _, l := range []string{"...", "// existing code", "x := 1 // ... existing code ...", "# ... existing code ... and more"} {
		if isLazyMarker(l) {
			t.Errorf("%q should not be a marker", l)
		}
	}
}

func TestStripNumbers(t *testing.T) {
	t.Parallel()
	got, first, ok := stripNumbers([]string{"  12\tfoo", "  13\t\tbar", "  14\t"})
	if !ok || first != 12 || !equalLines(got, []string{"foo", "\tbar", ""}) {
		t.Errorf("got %q %d %v", got, first, ok)
	}
	if _, _, ok := stripNumbers([]string{"12: a", "14: b"}); ok {
		t.Errorf("non-consecutive numbers must not be stripped")
	}
}
