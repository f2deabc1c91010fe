package preagent

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/issuesmith/issuesmith/summaries"
)

// Limits of the named-files section of the explorer's first message.
const (
	maxNamedRefs     = 20   // references looked at
	maxNamedPreviews = 4    // resolved files previewed
	namedContext     = 3    // lines shown around a named line
	namedTokens      = 3000 // token budget of the whole section
)

var (
	urlRe = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://\S+`)
	// path.ext with an optional :line(:col), as in "x/y.go:12" or a JS frame.
	pathRe = regexp.MustCompile(`(?:^|[\s(\[<'"` + "`" + `=])((?:\.{0,2}/)?(?:[\w@.+-]+/)*[\w@+-][\w@.+-]*\.[A-Za-z][A-Za-z0-9]{0,5})(?::(\d+))?`)
	// Python frames: File "x/y.py", line 12
	pyFrameRe = regexp.MustCompile(`File "([^"]+)", line (\d+)`)
	// Backticked identifiers: `Name`, `pkg.Func`, `Type.Method()`.
	symRe = regexp.MustCompile("`([A-Za-z_][\\w]*(?:\\.[A-Za-z_][\\w]*)*)(?:\\(\\))?`")
)

// namedRef is one thing the issue names and what it resolved to.
type namedRef struct {
	text string // as written
	path string // the file it names (resolved), "" when not resolved
	line int    // the named line, 0 for none
}

// namedRefs extracts the paths, path:line references, stack frames and
// backticked symbols of the issue, in order, without duplicates.
func namedRefs(text string) (paths []namedRef, syms []string) {
	text = urlRe.ReplaceAllString(text, " ")
	seen := map[string]bool{}
	add := func(p string, line int) {
		key := p + ":" + strconv.Itoa(line)
		if seen[key] || len(paths) >= maxNamedRefs {
			return
		}
		seen[key] = true
		t := p
		if line > 0 {
			t += ":" + strconv.Itoa(line)
		}
		paths = append(paths, namedRef{text: t, path: p, line: line})
	}
	for _, m := range pyFrameRe.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[2])
		add(m[1], n)
	}
	for _, m := range pathRe.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[2])
		add(m[1], n)
	}
	for _, m := range symRe.FindAllStringSubmatch(text, -1) {
		name := m[1]
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			if _, isPath := seenPath(paths, name); isPath {
				continue
			}
			name = name[i+1:]
		}
		if len(name) >= 3 && !seen["sym:"+name] && len(syms) < maxNamedRefs {
			seen["sym:"+name] = true
			syms = append(syms, name)
		}
	}
	return paths, syms
}

// seenPath reports whether s was taken as a path reference already.
func seenPath(refs []namedRef, s string) (int, bool) {
	for i, r := range refs {
		if r.path == s {
			return i, true
		}
	}
	return -1, false
}

// resolvePath finds the repository file a written path names: the exact
// path, else the files ending with it (an absolute or foreign prefix is
// dropped one folder at a time). One file resolves; several are ambiguous.
func resolvePath(files map[string]bool, sorted []string, p string) (string, []string) {
	p = strings.TrimPrefix(strings.TrimPrefix(p, "./"), "/")
	for p != "" {
		if files[p] {
			return p, nil
		}
		var cands []string
		for _, f := range sorted {
			if strings.HasSuffix(f, "/"+p) {
				cands = append(cands, f)
			}
		}
		switch {
		case len(cands) == 1:
			return cands[0], nil
		case len(cands) > 1:
			return "", cands
		}
		i := strings.IndexByte(p, '/')
		if i < 0 {
			break
		}
		p = p[i+1:]
	}
	return "", nil
}

// symbolFiles returns the files defining name and the definition's line.
func symbolFiles(ix *summaries.Index, name string) map[string]int {
	out := map[string]int{}
	for _, f := range ix.Files() {
		fi := ix.File(f)
		if fi == nil || fi.Outline == nil {
			continue
		}
		if l := findSymbol(fi.Outline.Symbols, name); l > 0 {
			out[f] = l
		}
	}
	return out
}

func findSymbol(syms []summaries.Symbol, name string) int {
	for _, s := range syms {
		if s.Name == name {
			return s.StartLine
		}
		if l := findSymbol(s.Children, name); l > 0 {
			return l
		}
	}
	return 0
}

// namedFiles renders the section of the first message about the files the
// issue names: previews (outline and the named lines) of those that
// resolve, and the ambiguous and missing ones listed as such. It needs the
// search index for the file list and the symbols; "" when nothing is named.
func (s *session) namedFiles(ctx context.Context) string {
	ix := s.e.idx
	if ix == nil || s.opts.NoNamedFiles {
		return ""
	}
	paths, syms := namedRefs(s.issue.Title + "\n" + s.issue.Body)
	if len(paths) == 0 && len(syms) == 0 {
		return ""
	}
	sorted := ix.Files()
	files := make(map[string]bool, len(sorted))
	for _, f := range sorted {
		files[f] = true
	}
	var resolved []namedRef
	var ambiguous, missing []string
	for _, r := range paths {
		p, cands := resolvePath(files, sorted, r.path)
		switch {
		case p != "":
			r.path = p
			resolved = append(resolved, r)
		case len(cands) > 0:
			ambiguous = append(ambiguous, fmt.Sprintf("`%s` → %s", r.text, listSome(cands)))
		case strings.Contains(r.path, "/"):
			missing = append(missing, "`"+r.text+"`")
		}
	}
	for _, name := range syms {
		defs := symbolFiles(ix, name)
		switch len(defs) {
		case 0:
		case 1:
			for p, l := range defs {
				resolved = append(resolved, namedRef{text: name, path: p, line: l})
			}
		default:
			ps := make([]string, 0, len(defs))
			for p := range defs {
				ps = append(ps, p)
			}
			sort.Strings(ps)
			ambiguous = append(ambiguous, fmt.Sprintf("`%s` (defined in %d files) → %s", name, len(ps), listSome(ps)))
		}
	}
	return s.renderNamed(resolved, ambiguous, missing)
}

// listSome lists up to five names.
func listSome(xs []string) string {
	if len(xs) > 5 {
		return strings.Join(xs[:5], ", ") + fmt.Sprintf(", … (%d in all)", len(xs))
	}
	return strings.Join(xs, ", ")
}
