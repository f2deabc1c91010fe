package summaries

import (
	"strings"
	"testing"
)

// FuzzOutline feeds arbitrary bytes to every parser path: outlines and
// syntax errors must never panic, and line ranges must stay inside the file.
//
//	go test ./summaries -run '^$' -fuzz FuzzOutline -fuzztime 30s
func FuzzOutline(f *testing.F) {
	for _, s := range []string{"package a\nfunc f() {}\n", "class A:\n  def f(self): pass\n", "export class X { m() {} }",
		"fn main() {}", "int main(void) { return 0; }", "# Title\n", "}{)(", "def (((:\n"} {
		f.Add(s, ".go")
		f.Add(s, ".py")
		f.Add(s, ".ts")
		f.Add(s, ".md")
	}
	exts := []string{".go", ".py", ".js", ".ts", ".tsx", ".java", ".rs", ".c", ".cpp", ".md", ".txt"}
	f.Fuzz(func(t *testing.T, src, ext string) {
		if !strings.HasPrefix(ext, ".") || len(ext) > 5 {
			ext = exts[len(ext)%len(exts)]
		}
		if ext == ".rb" || ext == ".lua" || IsCode("x"+ext) && LanguageOf("x"+ext) == LangOther {
			return // ctags spawns a process per call: too slow to fuzz
		}
		o, err := OutlineOf("f"+ext, []byte(src))
		if err != nil {
			return
		}
		var check func([]Symbol)
		check = func(ss []Symbol) {
			for _, s := range ss {
				if s.StartLine < 1 || s.EndLine < s.StartLine || s.EndLine > o.Lines+1 {
					t.Fatalf("symbol %q has range %d-%d in a %d-line file", s.Name, s.StartLine, s.EndLine, o.Lines)
				}
				check(s.Children)
			}
		}
		check(o.Symbols)
		_ = o.Render()
		SyntaxErrors("f"+ext, []byte(src))
	})
}

// FuzzQuery checks that any issue text parses into a query without panics.
func FuzzQuery(f *testing.F) {
	f.Add("Traceback (most recent call last):\n  File \"a/b.py\", line 3, in f\nValueError: bad `x.y` --flag")
	f.Add("`a.b.c` in pkg/mod.go:12 at x (src/y.js:1:2)\n```\ncode\n```")
	f.Fuzz(func(t *testing.T, text string) {
		q := parseQuery(text)
		for _, p := range q.phrases {
			if p == "" {
				t.Fatal("empty phrase")
			}
		}
	})
}
