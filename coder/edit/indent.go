package edit

import "strings"

// tabWidth is the column width given to a tab when indentation written with
// spaces is compared to indentation written with tabs; four spaces per tab
// is what models write for tab-indented code.
const tabWidth = 4

// leadWS returns the leading spaces and tabs of s.
func leadWS(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// width is the column width of leading whitespace, a tab counting tabWidth.
func width(ws string) int {
	w := 0
	for i := 0; i < len(ws); i++ {
		if ws[i] == '\t' {
			w += tabWidth
		} else {
			w++
		}
	}
	return w
}

// indentRel maps the model's indentation to the file's:
// file width = model width * num / den + off, rendered with tabs when the
// file indents with tabs.
type indentRel struct {
	num, den, off int
	tabs          bool
}

// identity reports whether the relation keeps widths unchanged.
func (r indentRel) identity() bool {
	return r.num == r.den && r.off == 0
}

// indentMap finds the one relation that maps every non-blank line of search
// onto the corresponding line of win. Scales 1, 2 and 1/2 cover a uniform
// offset and the usual 2↔4 space and tab↔space conversions.
func indentMap(search, win []string) (indentRel, bool) {
	type pair struct{ s, f int }
	var pairs []pair
	tabs := false
	for i := range search {
		if isBlank(search[i]) || isBlank(win[i]) {
			continue
		}
		lf := leadWS(win[i])
		tabs = tabs || strings.Contains(lf, "\t")
		pairs = append(pairs, pair{width(leadWS(search[i])), width(lf)})
	}
	if len(pairs) == 0 {
		return indentRel{num: 1, den: 1, tabs: tabs}, true
	}
	for _, sc := range [][2]int{{1, 1}, {2, 1}, {1, 2}} {
		num, den := sc[0], sc[1]
		if pairs[0].s*num%den != 0 {
			continue
		}
		off := pairs[0].f - pairs[0].s*num/den
		ok := true
		for _, p := range pairs[1:] {
			if p.s*num%den != 0 || p.s*num/den+off != p.f {
				ok = false
				break
			}
		}
		if ok {
			return indentRel{num: num, den: den, off: off, tabs: tabs}, true
		}
	}
	return indentRel{}, false
}

// reindent applies rel to a replacement line written in the model's
// indentation. Blank lines are left alone.
func reindent(l string, rel indentRel) string {
	if isBlank(l) {
		return l
	}
	lead := leadWS(l)
	hasTab := strings.Contains(lead, "\t")
	hasSpace := strings.Contains(lead, " ")
	if rel.identity() && (lead == "" || (rel.tabs && !hasSpace) || (!rel.tabs && !hasTab)) {
		return l
	}
	w := width(lead)*rel.num/rel.den + rel.off
	if w < 0 {
		w = 0
	}
	return renderIndent(w, rel.tabs) + l[len(lead):]
}

// renderIndent writes w columns of indentation in the file's style.
func renderIndent(w int, tabs bool) string {
	if tabs {
		return strings.Repeat("\t", w/tabWidth) + strings.Repeat(" ", w%tabWidth)
	}
	return strings.Repeat(" ", w)
}

// align maps each line of repl to the line of search it copies (exact
// equality, longest common subsequence), or -1 for new lines.
func align(search, repl []string) []int {
	out := make([]int, len(repl))
	for i := range out {
		out[i] = -1
	}
	n, m := len(search), len(repl)
	pre := 0
	for pre < n && pre < m && search[pre] == repl[pre] {
		out[pre] = pre
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && search[n-1-suf] == repl[m-1-suf] {
		out[m-1-suf] = n - 1 - suf
		suf++
	}
	a, b := search[pre:n-suf], repl[pre:m-suf]
	if len(a) == 0 || len(b) == 0 || len(a)*len(b) > 4_000_000 {
		return out
	}
	// dp[i][j] = LCS length of a[i:] and b[j:].
	w := len(b) + 1
	dp := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				dp[i*w+j] = dp[(i+1)*w+j+1] + 1
			case dp[(i+1)*w+j] >= dp[i*w+j+1]:
				dp[i*w+j] = dp[(i+1)*w+j]
			default:
				dp[i*w+j] = dp[i*w+j+1]
			}
		}
	}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			out[pre+j] = pre + i
			i++
			j++
		case dp[(i+1)*w+j] >= dp[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

// buildReplacement turns the model's REPLACE lines into the lines written to
// the file, given the matched window win of the file and the level that
// matched it. Lines the model copied from SEARCH take the file's own text;
// new lines keep their relative indentation on the file's unit and depth.
func buildReplacement(search, repl, win []string, lv level, fileTabs bool) []string {
	al := align(search, repl)
	out := make([]string, len(repl))
	rel, global := indentRel{num: 1, den: 1}, lv <= levelTrailing
	if lv >= levelIndent {
		rel, global = indentMap(search, win)
		if !hasIndentedLine(win) {
			rel.tabs = fileTabs
		}
	}
	for j, r := range repl {
		if k := al[j]; k >= 0 {
			out[j] = win[k]
			continue
		}
		switch {
		case lv <= levelTrailing:
			out[j] = r
		case global:
			out[j] = reindent(r, rel)
		default:
			out[j] = reindent(r, localRel(search, win, al, j, fileTabs))
		}
	}
	return out
}

// hasIndentedLine reports whether any line starts with whitespace and has content.
func hasIndentedLine(lines []string) bool {
	for _, l := range lines {
		if !isBlank(l) && leadWS(l) != "" {
			return true
		}
	}
	return false
}

// localRel derives an offset for replacement line j from the nearest copied
// non-blank line above it (else below, else the first non-blank pair), for
// matches whose indentation is not uniform.
func localRel(search, win []string, al []int, j int, fileTabs bool) indentRel {
	pick := func(k int) (indentRel, bool) {
		if k < 0 || isBlank(search[k]) || isBlank(win[k]) {
			return indentRel{}, false
		}
		lf := leadWS(win[k])
		tabs := fileTabs
		if lf != "" {
			tabs = strings.Contains(lf, "\t")
		}
		return indentRel{num: 1, den: 1, off: width(lf) - width(leadWS(search[k])), tabs: tabs}, true
	}
	for i := j - 1; i >= 0; i-- {
		if r, ok := pick(al[i]); ok {
			return r
		}
	}
	for i := j + 1; i < len(al); i++ {
		if r, ok := pick(al[i]); ok {
			return r
		}
	}
	for k := range search {
		if r, ok := pick(k); ok {
			return r
		}
	}
	return indentRel{num: 1, den: 1, tabs: fileTabs}
}
