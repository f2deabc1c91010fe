package summaries

import (
	"go/parser"
	"go/token"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// importRef is one import statement's target: the module as written and, for
// Python `from M import a, b`, the imported names (which may be submodules).
type importRef struct {
	Module string
	Names  []string
}

var (
	pyFrom    = regexp.MustCompile(`(?m)^[ \t]*from[ \t]+([.\w]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)`)
	pyImport  = regexp.MustCompile(`(?m)^[ \t]*import[ \t]+([\w. \t,]+)`)
	jsFrom    = regexp.MustCompile("(?:^|[;\\s])(?:import|export)\\s[^'\"`;]*?\\sfrom\\s*['\"]([^'\"\\n]+)['\"]")
	jsBare    = regexp.MustCompile(`(?m)^\s*import\s*['"]([^'"\n]+)['"]`)
	jsRequire = regexp.MustCompile(`\b(?:require|import)\s*\(\s*['"]([^'"\n]+)['"]\s*\)`)
)

// ImportsOf returns the modules a Go, Python, JavaScript or TypeScript file
// imports, as written, in order of first appearance; nil for other languages.
// Python relative imports keep their leading dots.
func ImportsOf(path string, src []byte) []string {
	refs := parseImports(path, src)
	seen := make(map[string]bool, len(refs))
	var out []string
	for _, r := range refs {
		if !seen[r.Module] {
			seen[r.Module] = true
			out = append(out, r.Module)
		}
	}
	return out
}

func parseImports(path string, src []byte) []importRef {
	switch LanguageOf(path) {
	case LangGo:
		return goImports(src)
	case LangPython:
		return pyImports(string(src))
	case LangJavaScript, LangTypeScript, LangTSX:
		return jsImports(string(src))
	}
	return nil
}

func goImports(src []byte) []importRef {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ImportsOnly)
	if f == nil {
		return nil
	}
	_ = err // a syntax error later in the file still leaves the imports parsed
	var out []importRef
	for _, is := range f.Imports {
		if p, err := strconv.Unquote(is.Path.Value); err == nil {
			out = append(out, importRef{Module: p})
		}
	}
	return out
}

func pyImports(s string) []importRef {
	type hit struct {
		at  int
		ref importRef
	}
	var hits []hit
	for _, mm := range pyFrom.FindAllStringSubmatchIndex(s, -1) {
		mod := s[mm[2]:mm[3]]
		names := s[mm[4]:mm[5]]
		if i := strings.IndexByte(names, '#'); i >= 0 && !strings.HasPrefix(names, "(") {
			names = names[:i]
		}
		var ns []string
		for _, part := range strings.FieldsFunc(names, func(r rune) bool { return r == ',' || r == '(' || r == ')' || r == '\n' || r == '\\' }) {
			part = strings.TrimSpace(part)
			if i := strings.IndexByte(part, '#'); i >= 0 {
				part = strings.TrimSpace(part[:i])
			}
			if f := strings.Fields(part); len(f) > 0 && f[0] != "*" {
				ns = append(ns, f[0])
			}
		}
		hits = append(hits, hit{mm[0], importRef{Module: mod, Names: ns}})
	}
	for _, mm := range pyImport.FindAllStringSubmatchIndex(s, -1) {
		for _, part := range strings.Split(s[mm[2]:mm[3]], ",") {
			if f := strings.Fields(part); len(f) > 0 {
				hits = append(hits, hit{mm[0], importRef{Module: f[0]}})
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].at < hits[j].at })
	out := make([]importRef, 0, len(hits))
	for _, h := range hits {
		out = append(out, h.ref)
	}
	return out
}

func jsImports(s string) []importRef {
	type hit struct {
		at  int
		mod string
	}
	var hits []hit
	for _, re := range []*regexp.Regexp{jsFrom, jsBare, jsRequire} {
		for _, mm := range re.FindAllStringSubmatchIndex(s, -1) {
			hits = append(hits, hit{mm[2], s[mm[2]:mm[3]]})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].at < hits[j].at })
	out := make([]importRef, 0, len(hits))
	for _, h := range hits {
		out = append(out, importRef{Module: h.mod})
	}
	return out
}
