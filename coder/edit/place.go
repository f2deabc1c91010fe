package edit

import (
	"fmt"
	"strconv"
	"strings"
)

// hints are the location statements of a block. They never place a block on
// their own: they only choose between candidates of one matching level.
type hints struct {
	line    int      // 1-based line in the original file, 0 if none
	anchors []string // Codex @@ anchors
	atEOF   bool
	// hold keeps the line hint from choosing for now: on the first pass over
	// a message, before another block of the file has shown how far its line
	// numbers are off, an uncalibrated hint may sit nearer a wrong copy.
	hold bool
}

func hintsOf(e Edit) hints {
	return hints{line: e.Hint, anchors: e.Anchors, atEOF: e.AtEOF}
}

// placement is one splice a block makes: lines [start, end) become repl.
type placement struct {
	start, end int
	repl       []string
}

// outcome describes how placing a block went.
type outcome struct {
	level   string
	reason  Reason
	message string
	cands   []int // 1-based candidate start lines when ambiguous
}

// place finds where a block goes, trying the block as written, then
// forgiving common transcription slips: blank lines at its edges, line
// numbers copied from a read tool, and "..." elisions.
//
// pairs, when set, maps each REPLACE line to the SEARCH line it is the same
// line of (hunk context), or -1.
func (fs *fileState) place(search, repl []string, pairs []int, h hints) ([]placement, outcome) {
	type variant struct {
		s, r []string
		al   []int
		at   int // numbered variants: the 0-based original line the numbers put s[0] at; else -1
	}
	vars := []variant{{search, repl, pairs, -1}}
	if s, r, lo, rlo, ok := trimBlankEdges(search, repl); ok {
		vars = append(vars, variant{s, r, shiftPairs(pairs, lo, rlo, len(s), len(r)), -1})
	}
	if s, n, ok := stripNumbers(search); ok {
		r := repl
		if rs, _, ok := stripNumbers(repl); ok {
			r = rs
		}
		if h.line == 0 {
			h.line = n
		}
		vars = append(vars, variant{s, r, nil, n - 1})
		if s2, r2, lo, _, ok := trimBlankEdges(s, r); ok {
			vars = append(vars, variant{s2, r2, nil, n - 1 + lo})
		}
	}
	for _, v := range vars {
		if len(v.s) == 0 {
			continue
		}
		start, lv, cands, ok := fs.locate(v.s, h)
		if ok && v.at >= 0 && abs(start-fs.mapHint(v.at)) > numberSlack {
			// The "line numbers" were content ("200: 'OK'"), or stale:
			// the text found elsewhere is not what the model quoted.
			continue
		}
		if ok {
			win := fs.window(start, len(v.s))
			rp := buildReplacement(v.s, v.r, win, v.al, fs.style(start, start+len(v.s)))
			return []placement{{start, start + len(v.s), rp}}, outcome{level: lv.name()}
		}
		if len(cands) > 1 {
			return nil, ambiguous(cands, lv)
		}
	}
	for _, v := range vars {
		if pl, out, ok := fs.placeElided(v.s, v.r); ok {
			return pl, out
		}
	}
	return nil, outcome{reason: ReasonNotFound, message: "SEARCH does not match the file, even ignoring whitespace, indentation and typographic quotes"}
}

// numberSlack is how far from the line its number prefixes name a block
// stripped of them may be found.
const numberSlack = 3

// ambiguous builds the outcome for several equally good candidates.
func ambiguous(cands []int, lv level) outcome {
	lines := make([]int, len(cands))
	strs := make([]string, len(cands))
	for i, c := range cands {
		lines[i] = c + 1
		strs[i] = strconv.Itoa(c + 1)
	}
	how := ""
	if lv != levelExact {
		how = " (compared " + lv.name() + ")"
	}
	return outcome{reason: ReasonAmbiguous, cands: lines,
		message: fmt.Sprintf("SEARCH matches %d places%s, starting at lines %s; add surrounding lines to make it unique", len(cands), how, strings.Join(strs, ", "))}
}

// locate runs the matching cascade. At the first level with any candidate it
// either returns the single candidate, one chosen by the hints, or reports
// the candidates (ok false). No candidate at any level returns nil, false.
func (fs *fileState) locate(search []string, h hints) (start int, lv level, cands []int, ok bool) {
	for lv = levelExact; lv < numLevels; lv++ {
		c := fs.candidates(lv, search)
		switch len(c) {
		case 0:
			continue
		case 1:
			return c[0], lv, c, true
		}
		if s, ok := fs.choose(c, len(search), h); ok {
			return s, lv, c, true
		}
		return 0, lv, c, false
	}
	return 0, 0, nil, false
}

// trimBlankEdges drops blank lines at the start and end of SEARCH (a
// spurious blank first line is a common slip) and the same number of blank
// lines from REPLACE where it has them.
func trimBlankEdges(search, repl []string) (s, r []string, lo, rlo int, ok bool) {
	hi := len(search)
	for lo < hi && isBlank(search[lo]) {
		lo++
	}
	for hi > lo && isBlank(search[hi-1]) {
		hi--
	}
	if lo == 0 && hi == len(search) || lo == hi {
		return nil, nil, 0, 0, false
	}
	rhi := len(repl)
	for i := 0; i < lo && rlo < rhi && isBlank(repl[rlo]); i++ {
		rlo++
	}
	for i := 0; i < len(search)-hi && rhi > rlo && isBlank(repl[rhi-1]); i++ {
		rhi--
	}
	return search[lo:hi], repl[rlo:rhi], lo, rlo, true
}

// shiftPairs re-indexes hunk pairs after trimming lo SEARCH and rlo REPLACE
// lines from the front.
func shiftPairs(pairs []int, lo, rlo, ns, nr int) []int {
	if pairs == nil {
		return nil
	}
	out := make([]int, nr)
	for j := range out {
		k := pairs[j+rlo] - lo
		if pairs[j+rlo] < 0 || k < 0 || k >= ns {
			k = -1
		}
		out[j] = k
	}
	return out
}

// stripNumbers removes line-number prefixes a read tool prints ("  12\t" or
// "12: ") when every line carries one and the numbers count up by one. It
// returns the first number as a line hint.
func stripNumbers(lines []string) ([]string, int, bool) {
	if len(lines) == 0 {
		return nil, 0, false
	}
	out := make([]string, len(lines))
	first := 0
	for i, l := range lines {
		n, rest, ok := numberPrefix(l)
		if !ok || (i > 0 && n != first+i) {
			return nil, 0, false
		}
		if i == 0 {
			first = n
		}
		out[i] = rest
	}
	return out, first, true
}

// numberPrefix splits "  12\trest", "12: rest" or "12:" (an empty line).
func numberPrefix(l string) (int, string, bool) {
	t := strings.TrimLeft(l, " ")
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 || i > 7 {
		return 0, "", false
	}
	n, _ := strconv.Atoi(t[:i])
	rest := t[i:]
	switch {
	case strings.HasPrefix(rest, "\t"):
		return n, rest[1:], true
	case strings.HasPrefix(rest, ": "):
		return n, rest[2:], true
	case rest == ":" || rest == "|":
		return n, "", true
	case strings.HasPrefix(rest, "| "):
		return n, rest[2:], true
	}
	return 0, "", false
}
