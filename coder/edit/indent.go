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
	return widthT(ws, tabWidth)
}

// widthT is width with a tab counting tab columns.
func widthT(ws string, tab int) int {
	w := 0
	for i := 0; i < len(ws); i++ {
		if ws[i] == '\t' {
			w += tab
		} else {
			w++
		}
	}
	return w
}

// indentRel maps the model's indentation to the file's:
// file width = model width * num / den + off, rendered with tabs when the
// file indents with tabs.
//
// When the model's leading whitespace differs from the file's by one exact
// string (it added or dropped the same prefix on every line), strip or add
// is set and that string edit is used instead, which keeps mixed tabs and
// spaces exactly.
type indentRel struct {
	num, den, off int
	tabs          bool   // render with tabs
	tabCols       int    // columns of a tab in the model's text (0: tabWidth)
	strip, add    string // exact prefix the model added / dropped
}

// identity reports whether the relation keeps widths unchanged.
func (r indentRel) identity() bool {
	return r.num == r.den && r.off == 0 && r.strip == "" && r.add == ""
}

// prefixRel finds one exact whitespace prefix that the model added to (or
// dropped from) the leading whitespace of every non-blank line.
func prefixRel(search, win []string) (strip, add string, ok bool) {
	first := true
	for i := range search {
		if isBlank(search[i]) || isBlank(win[i]) {
			continue
		}
		ls, lf := leadWS(search[i]), leadWS(win[i])
		var s, a string
		switch {
		case strings.HasSuffix(ls, lf):
			s = ls[:len(ls)-len(lf)]
		case strings.HasSuffix(lf, ls):
			a = lf[:len(lf)-len(ls)]
		default:
			return "", "", false
		}
		if first {
			strip, add, first = s, a, false
			continue
		}
		if s != strip || a != add {
			return "", "", false
		}
	}
	return strip, add, !first && (strip != "" || add != "")
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
	strip, add, exact := prefixRel(search, win)
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
			return indentRel{num: num, den: den, off: off, tabs: tabs, strip: strip, add: add}, true
		}
	}
	if exact {
		return indentRel{num: 1, den: 1, tabs: tabs, strip: strip, add: add}, true
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
	switch {
	case rel.add != "":
		return rel.add + l
	case rel.strip != "" && strings.HasPrefix(l, rel.strip):
		return l[len(rel.strip):]
	}
	hasTab := strings.Contains(lead, "\t")
	hasSpace := strings.Contains(lead, " ")
	if rel.identity() && (lead == "" || (rel.tabs && !hasSpace) || (!rel.tabs && !hasTab)) {
		return l
	}
	tc := rel.tabCols
	if tc == 0 {
		tc = tabWidth
	}
	w := widthT(lead, tc)*rel.num/rel.den + rel.off
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

// style describes the indentation of the file around a match, for
// replacement lines when SEARCH itself shows no indentation to learn from.
type style struct {
	tabsOnly, spacesOnly bool // indented lines near the match use only tabs / only spaces
	unit                 int  // the file's space indentation unit (2, 4, ...), 4 if unknown
}

// indentPlan says how replacement lines that are not copies of SEARCH
// lines get their indentation.
type indentPlan struct {
	evidence bool      // SEARCH and the window had indented lines to compare
	verbatim bool      // keep the model's indentation as written
	global   bool      // apply rel to every line
	rel      indentRel // the relation for global (and the style fallback)
}

// planIndent compares the indentation of SEARCH with the matched window.
// Identical leading whitespace means the model writes the file's style: keep
// its lines as they are. A consistent relation (offset, tab↔space) is applied
// to every new line. Without indented lines to compare, new lines written in
// the other style than every indented line around the match are converted.
func planIndent(search, win []string, st style) indentPlan {
	evidence, same := false, true
	for i := range search {
		if isBlank(search[i]) || isBlank(win[i]) {
			continue
		}
		ls, lf := leadWS(search[i]), leadWS(win[i])
		evidence = evidence || ls != "" || lf != ""
		same = same && ls == lf
	}
	switch {
	case evidence && same:
		return indentPlan{evidence: true, verbatim: true}
	case !evidence && st.tabsOnly:
		return indentPlan{global: true, rel: indentRel{num: 1, den: 1, tabs: true}}
	case !evidence && st.spacesOnly:
		return indentPlan{global: true, rel: indentRel{num: 1, den: 1, tabCols: st.unit}}
	case !evidence:
		return indentPlan{verbatim: true}
	}
	rel, ok := indentMap(search, win)
	if ok && !hasIndentedLine(win) {
		rel.tabs = st.tabsOnly
	}
	return indentPlan{evidence: true, global: ok, rel: rel}
}

// buildReplacement turns the model's REPLACE lines into the lines written to
// the file, given the matched window win. al maps REPLACE lines to the
// SEARCH lines they copy (nil: computed). Copied lines take the file's own
// text; blank lines are written as the model wrote them unless the format
// pairs them exactly (hunk context); new lines keep their relative
// indentation on the file's unit and depth.
func buildReplacement(search, repl, win []string, al []int, st style) []string {
	exactPairs := al != nil
	if al == nil {
		al = align(search, repl)
	}
	plan := planIndent(search, win, st)
	var table map[string]string
	if !plan.verbatim && !plan.global {
		table = leadTable(search, win)
	}
	out := make([]string, len(repl))
	var rewrites []int
	for j, r := range repl {
		k := al[j]
		switch {
		case k >= 0 && (exactPairs || !isBlank(r)):
			out[j] = win[k]
			continue
		case plan.verbatim || isBlank(r):
			out[j] = r
		case plan.global:
			out[j] = reindent(r, plan.rel)
		default:
			out[j] = tableIndent(r, table, localRel(search, win, al, j, st.tabsOnly))
		}
		if k < 0 && !isBlank(r) {
			if rewrites == nil {
				rewrites = changedPairs(al, len(search))
			}
			if k := rewrites[j]; k >= 0 && !isBlank(win[k]) {
				out[j] = transplant(search[k], win[k], out[j])
			}
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

// leadTable maps each leading whitespace the model wrote in SEARCH to the
// file's leading whitespace on the matched line, for matches whose
// indentation is not one uniform shift. A model lead seen with two
// different file leads is left out.
func leadTable(search, win []string) map[string]string {
	table := map[string]string{}
	bad := map[string]bool{}
	for i := range search {
		if isBlank(search[i]) || isBlank(win[i]) {
			continue
		}
		ls, lf := leadWS(search[i]), leadWS(win[i])
		if f, ok := table[ls]; ok && f != lf {
			bad[ls] = true
		}
		table[ls] = lf
	}
	for k := range bad {
		delete(table, k)
	}
	return table
}

// tableIndent re-indents a new line through leadTable: its own lead, or
// the longest known lead it extends (plus the extra whitespace); lines the
// table cannot place fall back to rel.
func tableIndent(l string, table map[string]string, rel indentRel) string {
	if isBlank(l) {
		return l
	}
	lead := leadWS(l)
	if f, ok := table[lead]; ok {
		return f + l[len(lead):]
	}
	best, found := "", false
	for k := range table {
		if strings.HasPrefix(lead, k) && (!found || len(k) > len(best)) {
			best, found = k, true
		}
	}
	if found {
		return table[best] + lead[len(best):] + l[len(lead):]
	}
	return reindent(l, rel)
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
