package summaries

import (
	"bufio"
	"path"
	"sort"
	"strings"
)

// importGraph records which indexed files import which, resolved to files of
// the same tree. Imports of modules outside the tree are dropped.
type importGraph struct {
	out map[string][]string // importer → imported files
	in  map[string][]string // imported file → importers
}

// goModule is a module path declared by a go.mod file and its directory.
type goModule struct{ path, dir string }

func buildGraph(files map[string]*FileInfo, sorted []string) *importGraph {
	g := &importGraph{out: map[string][]string{}, in: map[string][]string{}}
	r := newResolver(files, sorted)
	for _, p := range sorted {
		f := files[p]
		if len(f.imports) == 0 {
			continue
		}
		seen := map[string]bool{}
		for _, imp := range f.imports {
			for _, t := range r.resolve(p, imp) {
				if t != p && !seen[t] {
					seen[t] = true
					g.out[p] = append(g.out[p], t)
					g.in[t] = append(g.in[t], p)
				}
			}
		}
	}
	return g
}

// resolver turns import specifiers into repository files.
type resolver struct {
	files   map[string]*FileInfo
	goMods  []goModule          // longest module path first
	goDirs  map[string][]string // directory → its non-test .go files
	pyMods  map[string][]string // dotted module suffix → files
	present map[string]bool
}

func newResolver(files map[string]*FileInfo, sorted []string) *resolver {
	r := &resolver{files: files, goDirs: map[string][]string{}, pyMods: map[string][]string{}, present: map[string]bool{}}
	for _, p := range sorted {
		r.present[p] = true
		switch {
		case path.Base(p) == "go.mod":
			if mp := goModulePath(files[p]); mp != "" {
				r.goMods = append(r.goMods, goModule{path: mp, dir: path.Dir(p)})
			}
		case strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go"):
			d := path.Dir(p)
			r.goDirs[d] = append(r.goDirs[d], p)
		case strings.HasSuffix(p, ".py") || strings.HasSuffix(p, ".pyi"):
			mod := strings.TrimSuffix(strings.TrimSuffix(p, ".py"), ".pyi")
			mod = strings.TrimSuffix(mod, "/__init__")
			parts := strings.Split(mod, "/")
			// every suffix is a candidate module name: the import root
			// may be the repository root, src/, lib/ or any folder
			for i := range parts {
				key := strings.Join(parts[i:], ".")
				r.pyMods[key] = append(r.pyMods[key], p)
			}
		}
	}
	sort.Slice(r.goMods, func(i, j int) bool { return len(r.goMods[i].path) > len(r.goMods[j].path) })
	return r
}

// keeps no raw content, so the module path is re-read from the outline's
// imports slot filled by parseOne for go.mod files.
func goModulePath(f *FileInfo) string {
	if f == nil {
		return ""
	}
	return f.goModule
}

func (r *resolver) resolve(from string, imp importRef) []string {
	switch LanguageOf(from) {
	case LangGo:
		return r.resolveGo(imp.Module)
	case LangPython:
		return r.resolvePy(from, imp)
	case LangJavaScript, LangTypeScript, LangTSX:
		return r.resolveJS(from, imp.Module)
	}
	return nil
}

func (r *resolver) resolveGo(ip string) []string {
	for _, m := range r.goMods {
		if ip == m.path || strings.HasPrefix(ip, m.path+"/") {
			return r.goDirs[path.Clean(path.Join(m.dir, strings.TrimPrefix(ip, m.path)))]
		}
	}
	return nil
}

func (r *resolver) resolvePy(from string, imp importRef) []string {
	mod := imp.Module
	if strings.HasPrefix(mod, ".") {
		dots := len(mod) - len(strings.TrimLeft(mod, "."))
		dir := path.Dir(from)
		for i := 1; i < dots; i++ {
			dir = path.Dir(dir)
		}
		rel := strings.ReplaceAll(strings.TrimLeft(mod, "."), ".", "/")
		base := path.Join(dir, rel)
		var out []string
		if rel != "" {
			out = r.pyFile(base)
		}
		for _, n := range imp.Names {
			out = append(out, r.pyFile(path.Join(base, n))...)
		}
		if len(out) == 0 && rel == "" {
			out = r.pyFile(base) // from . import x where x is a name in __init__
		}
		return out
	}
	var out []string
	for _, n := range imp.Names { // from pkg import submodule
		out = append(out, r.pyLookup(mod+"."+n)...)
	}
	if len(out) == 0 {
		out = r.pyLookup(mod)
	}
	return out
}

func (r *resolver) pyFile(base string) []string {
	for _, c := range []string{base + ".py", base + "/__init__.py", base + ".pyi"} {
		if r.present[c] {
			return []string{c}
		}
	}
	return nil
}

// pyLookup resolves an absolute dotted module. When several folders hold a
// module of that name, the one nearest the repository root wins.
func (r *resolver) pyLookup(mod string) []string {
	c := r.pyMods[mod]
	if len(c) == 0 {
		return nil
	}
	best := c[0]
	for _, p := range c[1:] {
		if strings.Count(p, "/") < strings.Count(best, "/") {
			best = p
		}
	}
	return []string{best}
}

var jsExts = []string{"", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".d.ts", "/index.ts", "/index.tsx", "/index.js", "/index.jsx"}

func (r *resolver) resolveJS(from, spec string) []string {
	if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && spec != "." && spec != ".." {
		return nil // a package, not a file of this tree
	}
	base := path.Join(path.Dir(from), spec)
	if strings.HasSuffix(base, ".js") { // TypeScript ESM imports name the emitted .js
		stem := strings.TrimSuffix(base, ".js")
		for _, e := range []string{".ts", ".tsx"} {
			if r.present[stem+e] {
				return []string{stem + e}
			}
		}
	}
	for _, e := range jsExts {
		if r.present[base+e] {
			return []string{base + e}
		}
	}
	return nil
}

// parseGoModLine returns the module path of go.mod content.
func parseGoModLine(src []byte) string {
	sc := bufio.NewScanner(strings.NewReader(string(src)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// Imports returns the files of the tree that path imports.
func (ix *Index) Imports(p string) []string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return append([]string(nil), ix.graph.out[p]...)
}

// ImportedBy returns the files of the tree that import path.
func (ix *Index) ImportedBy(p string) []string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return append([]string(nil), ix.graph.in[p]...)
}
