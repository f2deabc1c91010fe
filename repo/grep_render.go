package repo

import (
	"bytes"
	"fmt"
	"strings"
)

// renderGrep prints the first limit matching lines of hits, in path order,
// each file's lines re-read so only shown files are kept in memory.
func (w *Workspace) renderGrep(p GrepParams, hits []fileHits, st grepStats, limit, context int) string {
	total := 0
	for _, h := range hits {
		total += h.count
	}
	var b strings.Builder
	if total == 0 {
		fmt.Fprintf(&b, "no matches for `%s` in %s (%s searched", p.Pattern, scope(p.Path), plural(st.searched, "file"))
		b.WriteString(skipped(st) + ")\n")
		return b.String()
	}
	fmt.Fprintf(&b, "%s in %s for `%s` in %s%s\n",
		plural(total, "match"), plural(len(hits), "file"), p.Pattern, scope(p.Path), skipped(st))
	shown, filesShown := 0, 0
	for _, h := range hits {
		if shown >= limit {
			break
		}
		take := h.lines[:min(len(h.lines), limit-shown)]
		w.renderFileHits(&b, h.path, take, context)
		shown += len(take)
		filesShown++
	}
	if rest := total - shown; rest > 0 {
		fmt.Fprintf(&b, "(%s not shown", plural(rest, "more match"))
		if more := len(hits) - filesShown; more > 0 {
			fmt.Fprintf(&b, "; %s with matches not shown at all", plural(more, "file"))
		}
		b.WriteString("; narrow with path, include or exclude, or a more precise pattern)\n")
	}
	return b.String()
}

// renderFileHits prints the given matching lines of one file with context.
func (w *Workspace) renderFileHits(b *strings.Builder, rel string, lines []int, context int) {
	data, err := w.root.ReadFile(rel)
	if err != nil {
		fmt.Fprintf(b, "%s: (file changed or vanished while searching)\n", rel)
		return
	}
	all := bytes.Split(data, []byte{'\n'})
	if len(all) > 0 && len(all[len(all)-1]) == 0 {
		all = all[:len(all)-1]
	}
	match := make(map[int]bool, len(lines))
	for _, n := range lines {
		match[n] = true
	}
	last := 0 // last line printed
	for _, n := range lines {
		from := max(n-context, last+1, 1)
		to := min(n+context, len(all))
		if context > 0 && last > 0 && from > last+1 {
			b.WriteString("--\n")
		}
		for i := from; i <= to; i++ {
			sep := "-"
			if match[i] {
				sep = ":"
			}
			text := clip(strings.TrimRight(string(all[i-1]), "\r"))
			fmt.Fprintf(b, "%s%s%d%s %s\n", rel, sep, i, sep, text)
		}
		last = max(last, to)
	}
}

// scope names where a search looked.
func scope(p string) string {
	if c, err := Clean(p); err == nil && c != "." {
		return c
	}
	return "the repository"
}

// skipped says which files a search left out, or nothing.
func skipped(st grepStats) string {
	var parts []string
	if st.binary > 0 {
		parts = append(parts, plural(st.binary, "binary file")+" skipped")
	}
	if st.huge > 0 {
		parts = append(parts, plural(st.huge, "file")+" over 32 MB skipped")
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, ", ")
}
