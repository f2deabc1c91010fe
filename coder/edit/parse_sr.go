package edit

import (
	"strconv"
	"strings"
)

// markerRun reports whether s starts with at least 7 copies of c and returns
// the rest after the run.
func markerRun(s string, c byte) (string, bool) {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	if n < 7 {
		return "", false
	}
	return s[n:], true
}

// isSearchMarker matches "------- SEARCH" and "<<<<<<< SEARCH" (7 or more
// marker characters, trailing spaces tolerated).
func isSearchMarker(l string) bool {
	t := strings.TrimRight(l, " \t\r")
	for _, c := range []byte{'-', '<'} {
		if rest, ok := markerRun(t, c); ok && strings.TrimSpace(rest) == "SEARCH" && strings.HasPrefix(rest, " ") {
			return true
		}
	}
	return false
}

// isDivider matches "=======" (7 or more).
func isDivider(l string) bool {
	rest, ok := markerRun(strings.TrimRight(l, " \t\r"), '=')
	return ok && rest == ""
}

// isReplaceMarker matches "+++++++ REPLACE" and ">>>>>>> REPLACE".
func isReplaceMarker(l string) bool {
	t := strings.TrimRight(l, " \t\r")
	for _, c := range []byte{'+', '>'} {
		if rest, ok := markerRun(t, c); ok && strings.TrimSpace(rest) == "REPLACE" && strings.HasPrefix(rest, " ") {
			return true
		}
	}
	return false
}

// unescapeMarker turns a backslash-escaped marker line ("\=======") into the
// literal line; other lines are returned unchanged.
func unescapeMarker(l string) string {
	if strings.HasPrefix(l, `\`) {
		r := l[1:]
		if isSearchMarker(r) || isDivider(r) || isReplaceMarker(r) || strings.HasPrefix(r, `\`) && unescapeMarker(r) != r {
			return r
		}
	}
	return l
}

// hasSRMarker reports whether any line is a SEARCH marker.
func hasSRMarker(lines []string) bool {
	for _, l := range lines {
		if isSearchMarker(l) {
			return true
		}
	}
	return false
}

// searchReplace parses one SEARCH/REPLACE block starting at the SEARCH marker
// on line p.i. It stops at the REPLACE marker, or marks the block incomplete
// or malformed.
func (p *parser) searchReplace(path string, f Format, limit int) {
	e := Edit{Path: path, Format: f, Op: OpReplace}
	p.i++
	e.Hint = p.lineHint()
	state := 0 // 0 = SEARCH, 1 = REPLACE
	for ; p.i < limit; p.i++ {
		l := p.lines[p.i]
		switch {
		case isSearchMarker(l):
			// A new block starts before this one ended: report and let the
			// caller parse the next block from here.
			e.Problem, e.Detail = ReasonMalformed, malformedDetail(state)
			p.edits = append(p.edits, e)
			return
		case isDivider(l):
			if state == 1 {
				e.Problem, e.Detail = ReasonMalformed, "a second ======= separator inside the block (escape a literal one as \\=======)"
				p.skipTo(limit)
				p.edits = append(p.edits, e)
				return
			}
			state = 1
		case isReplaceMarker(l):
			p.i++
			if state == 0 {
				e.Problem, e.Detail = ReasonMalformed, "the ======= separator is missing between SEARCH and REPLACE"
			}
			p.edits = append(p.edits, e)
			return
		case state == 0:
			e.Search = append(e.Search, unescapeMarker(l))
		default:
			e.Replace = append(e.Replace, unescapeMarker(l))
		}
	}
	e.Problem, e.Detail = ReasonIncomplete, "the message ends before the block's REPLACE marker"
	p.edits = append(p.edits, e)
}

// malformedDetail explains a SEARCH marker found inside an open block.
func malformedDetail(state int) string {
	if state == 0 {
		return "a new SEARCH marker appears before this block's ======= separator"
	}
	return "a new SEARCH marker appears before this block's REPLACE marker"
}

// skipTo moves past the current block's end marker (or to limit).
func (p *parser) skipTo(limit int) {
	for ; p.i < limit; p.i++ {
		if isReplaceMarker(p.lines[p.i]) {
			p.i++
			return
		}
		if isSearchMarker(p.lines[p.i]) {
			return
		}
	}
}

// lineHint consumes a Roo-style ":start_line:N" line (and the "-------" line
// that may follow it) at p.i and returns N, or 0.
func (p *parser) lineHint() int {
	if p.i >= len(p.lines) {
		return 0
	}
	t := strings.TrimSpace(p.lines[p.i])
	if !strings.HasPrefix(t, ":start_line:") {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(t, ":start_line:")))
	if err != nil || n < 1 {
		return 0
	}
	p.i++
	if p.i < len(p.lines) && strings.Trim(strings.TrimSpace(p.lines[p.i]), "-") == "" && strings.TrimSpace(p.lines[p.i]) != "" {
		p.i++
	}
	return n
}
