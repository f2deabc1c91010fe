package preagent

import (
	"fmt"
	"sort"
	"strings"

	"github.com/issuesmith/issuesmith/summaries"
)

// renderNamed writes the named-files section: per resolved file the names
// that led to it, its outline and the named lines; then the ambiguous and
// missing names, never guessed.
func (s *session) renderNamed(resolved []namedRef, ambiguous, missing []string) string {
	if len(resolved) == 0 && len(ambiguous) == 0 && len(missing) == 0 {
		return ""
	}
	var order []string
	byPath := map[string][]namedRef{}
	for _, r := range resolved {
		if byPath[r.path] == nil {
			order = append(order, r.path)
		}
		byPath[r.path] = append(byPath[r.path], r)
	}
	var b strings.Builder
	b.WriteString("Files the issue names, resolved against the repository (exact path, path suffix or symbol definition):\n")
	for i, p := range order {
		var names []string
		for _, r := range byPath[p] {
			names = append(names, "`"+r.text+"`")
		}
		fmt.Fprintf(&b, "\n%s → %s\n", strings.Join(names, ", "), p)
		if i >= maxNamedPreviews {
			b.WriteString("(not previewed: use preview_file or read_file)\n")
			continue
		}
		b.WriteString(s.namedPreview(p, byPath[p]))
	}
	if len(ambiguous) > 0 {
		b.WriteString("\nAmbiguous (not opened; more than one file fits):\n- " + strings.Join(ambiguous, "\n- ") + "\n")
	}
	if len(missing) > 0 {
		b.WriteString("\nNot in the repository: " + strings.Join(missing, ", ") + "\n")
	}
	return cutTokens(b.String(), namedTokens, "named files cut; preview the rest with preview_file")
}

// namedPreview is one file's outline and the lines the issue names.
func (s *session) namedPreview(p string, refs []namedRef) string {
	src, err := s.e.ws.ReadBytes(p)
	if err != nil {
		return ""
	}
	var b strings.Builder
	if o, err := summaries.OutlineOf(p, src); err == nil {
		fmt.Fprintf(&b, "<outline path=%q>\n%s</outline>\n", p, defuse(cutTokens(o.Render(), 500, "outline cut"), "outline"))
	}
	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	named := map[int]bool{}
	for _, r := range refs {
		if r.line > 0 && r.line <= len(lines) {
			named[r.line] = true
		}
	}
	for _, w := range namedWindows(named, len(lines)) {
		fmt.Fprintf(&b, "<lines path=%q from=\"%d\">\n", p, w[0])
		for n := w[0]; n <= w[1]; n++ {
			mark := " "
			if named[n] {
				mark = ">"
			}
			fmt.Fprintf(&b, "%s%5d\t%s\n", mark, n, defuse(strings.TrimRight(lines[n-1], "\r"), "lines"))
		}
		b.WriteString("</lines>\n")
	}
	return b.String()
}

// namedWindows merges the context windows around the named lines.
func namedWindows(named map[int]bool, n int) [][2]int {
	var ls []int
	for l := range named {
		ls = append(ls, l)
	}
	sort.Ints(ls)
	var out [][2]int
	for _, l := range ls {
		lo, hi := max(1, l-namedContext), min(n, l+namedContext)
		if k := len(out) - 1; k >= 0 && lo <= out[k][1]+1 {
			out[k][1] = max(out[k][1], hi)
			continue
		}
		out = append(out, [2]int{lo, hi})
	}
	return out
}
