package edit

import (
	"fmt"
	"strings"
)

// isLazyMarker reports whether l is a "... existing code ..." line in any
// comment syntax (//, #, /* */, <!-- -->, --, ;).
func isLazyMarker(l string) bool {
	t := strings.TrimSpace(l)
	for _, p := range []string{"//", "#", "/*", "<!--", "--", ";", "*", "{/*"} {
		if strings.HasPrefix(t, p) {
			t = strings.TrimSpace(t[len(p):])
			break
		}
	}
	for _, s := range []string{"*/}", "*/", "-->"} {
		t = strings.TrimSpace(strings.TrimSuffix(t, s))
	}
	t = strings.ReplaceAll(t, "…", "...")
	if !strings.HasPrefix(t, "...") || !strings.HasSuffix(t, "...") || len(t) < 7 {
		return false
	}
	inner := strings.ToLower(strings.TrimSpace(strings.Trim(t, ".")))
	inner = strings.Trim(inner, "()[] ")
	switch inner {
	case "existing code", "existing code unchanged", "unchanged code", "rest of code", "rest of the code", "keep existing code":
		return true
	}
	return false
}

// hasLazyMarker reports whether any line is a lazy marker.
func hasLazyMarker(lines []string) bool {
	for _, l := range lines {
		if isLazyMarker(l) {
			return true
		}
	}
	return false
}

// lazySegment is a run of snippet lines between markers.
type lazySegment struct {
	lines     []string
	openStart bool // no marker before: the segment starts at the start of the file
	openEnd   bool // no marker after: the segment runs to the end of the file
}

// splitLazy cuts a snippet at its markers, dropping segments without code.
func splitLazy(snippet []string) []lazySegment {
	var segs []lazySegment
	var cur []string
	afterMarker := false
	for _, l := range snippet {
		if isLazyMarker(l) {
			if hasContent(cur) {
				segs = append(segs, lazySegment{lines: cur, openStart: !afterMarker})
			}
			cur, afterMarker = nil, true
			continue
		}
		cur = append(cur, l)
	}
	if hasContent(cur) {
		segs = append(segs, lazySegment{lines: cur, openStart: !afterMarker, openEnd: true})
	}
	return segs
}

func hasContent(lines []string) bool {
	for _, l := range lines {
		if !isBlank(l) {
			return true
		}
	}
	return false
}

// lazy merges a lazy snippet: every segment between markers is placed
// between its shortest unique head anchor and its shortest unique tail
// anchor (searching forward from the previous segment), and replaces the
// file's lines between them; the code a marker stands for stays.
func (w *workspace) lazy(fs *fileState, e Edit, res BlockResult) BlockResult {
	if !fs.exists {
		if hasLazyMarker(e.Replace) {
			res.Reason, res.Message = ReasonFileMissing, fmt.Sprintf("%s does not exist; a new file needs its full content, without markers", fs.path)
			return res
		}
		return w.create(fs, e.Replace, res)
	}
	segs := splitLazy(stripBOM(e.Replace))
	if len(segs) == 0 {
		res.Reason, res.Message = ReasonMalformed, "the lazy edit holds only markers"
		return res
	}
	var spots []segSpot
	pos := 0
	for i, s := range segs {
		sp, msg := fs.placeSegment(s, pos)
		if msg != "" {
			res.Reason = ReasonNotFound
			if strings.Contains(msg, "more than once") {
				res.Reason = ReasonAmbiguous
			}
			res.Message = fmt.Sprintf("lazy segment %d of %d: %s", i+1, len(segs), msg)
			return res
		}
		spots = append(spots, sp)
		pos = sp.end
	}
	pl, msg := fs.lazyPlacements(spots)
	if msg != "" {
		res.Reason, res.Message = ReasonNotFound, msg
		return res
	}
	same := true
	for _, p := range pl {
		same = same && equalLines(fs.window(p.start, p.end-p.start), p.repl)
	}
	if same {
		res.Status, res.Message = StatusAlreadyApplied, "the file already has this code"
		return res
	}
	for i := len(pl) - 1; i >= 0; i-- {
		fs.splice(pl[i].start, pl[i].end, pl[i].repl)
	}
	res.Status, res.Level = StatusApplied, "lazy"
	res.Start, res.End = pl[0].start+1, pl[len(pl)-1].end
	return res
}

// uniqueFrom finds lines in [from, len) compared at the loosest level
// (whitespace and punctuation ignored), so an anchor counts as unique only
// when no look-alike exists at another depth. It returns the first start,
// whether the lines exist there at all, and whether the match is unique.
// lazyPlacements then checks that all anchors agree on one indentation.
func (fs *fileState) uniqueFrom(lines []string, from int) (start int, found, unique bool) {
	var in []int
	for _, c := range fs.candidates(levelUnicode, lines) {
		if c >= from {
			in = append(in, c)
		}
	}
	if len(in) == 0 {
		return 0, false, false
	}
	return in[0], true, len(in) == 1
}

// segSpot is where a lazy segment goes: file lines [start, end) are
// replaced; its first h and last t lines are anchors found in the file.
type segSpot struct {
	seg        []string
	start, end int
	h, t       int
}

// placeSegment locates one segment at or after line from.
func (fs *fileState) placeSegment(s lazySegment, from int) (segSpot, string) {
	n, seg := len(fs.doc.lines), s.lines
	headStart, h := 0, 0
	if !s.openStart {
		for h = 1; ; h++ {
			if h > len(seg) {
				return segSpot{}, "its first lines occur more than once; include more unchanged lines after the marker"
			}
			st, found, unique := fs.uniqueFrom(seg[:h], from)
			if !found && h > 1 {
				// The shorter run was in the file, just not once: the
				// model must quote more of it, not find it.
				return segSpot{}, fmt.Sprintf("the unchanged lines after the marker (%q ...) occur more than once; include more unchanged lines after the marker", firstNonBlank(seg[:h-1]))
			}
			if !found {
				return segSpot{}, fmt.Sprintf("the unchanged line after the marker (%q) is not in the file", firstNonBlank(seg[:h]))
			}
			if unique {
				headStart = st
				break
			}
		}
	} else if from > 0 {
		return segSpot{}, "only the first segment may start without a marker"
	}
	tailEnd, t := n, 0
	if !s.openEnd {
		for t = 1; ; t++ {
			if t > len(seg) {
				return segSpot{}, "its last lines occur more than once; include more unchanged lines before the marker"
			}
			off := len(seg) - t
			region := headStart + h
			if off < h {
				region = headStart + off
			}
			st, found, unique := fs.uniqueFrom(seg[off:], region)
			if !found && t > 1 {
				return segSpot{}, fmt.Sprintf("the unchanged lines before the marker (%q) occur more than once; include more unchanged lines before the marker", lastNonBlank(seg[off+1:]))
			}
			if !found {
				return segSpot{}, fmt.Sprintf("the unchanged line before the marker (%q) is not in the file after the segment's start", firstNonBlank(seg[off:]))
			}
			if !unique {
				continue
			}
			if off < h && st != headStart+off {
				return segSpot{}, "its first and last lines do not line up with the file"
			}
			tailEnd = st + t
			break
		}
	}
	if tailEnd < headStart {
		return segSpot{}, "its last lines come before its first lines in the file"
	}
	return segSpot{seg: seg, start: headStart, end: tailEnd, h: h, t: t}, ""
}

// lazyPlacements renders the placed segments for the file. Anchor lines
// take the file's text. The snippet's indentation is judged once, from all
// anchors together (a model shifts a whole snippet, not one segment); when
// the anchors show no indentation, new lines are compared with the file
// lines they replace.
func (fs *fileState) lazyPlacements(spots []segSpot) ([]placement, string) {
	var model, file []string
	for _, sp := range spots {
		model = append(append(model, sp.seg[:sp.h]...), sp.seg[len(sp.seg)-sp.t:]...)
		file = append(append(file, fs.window(sp.start, sp.h)...), fs.window(sp.end-sp.t, sp.t)...)
		m, f := fs.edgePairs(sp)
		model, file = append(model, m...), append(file, f...)
		if n := unshownLines(sp.seg[sp.h:len(sp.seg)-sp.t], fs.window(sp.start+sp.h, sp.end-sp.t-sp.start-sp.h)); n > maxUnshown && n > 3*len(sp.seg) {
			return nil, fmt.Sprintf("lines %d–%d: the snippet would delete %d lines it does not show; put a marker where code stays", sp.start+1, sp.end, n)
		}
	}
	st := fs.style(spots[0].start, spots[len(spots)-1].end)
	plan := planIndent(model, file, st)
	if plan.evidence && !plan.verbatim && plan.global && nonBlankPairs(model, file) < 2 {
		// One shifted anchor: look for a new line that closely resembles
		// the line it replaces, to corroborate the shift.
		for _, sp := range spots {
			m, f := similarPairs(sp.seg[sp.h:len(sp.seg)-sp.t], fs.window(sp.start+sp.h, sp.end-sp.t-sp.start-sp.h), 0.8)
			model, file = append(model, m...), append(file, f...)
			// A segment that starts the file puts its first line where the
			// file's first line is, and a first line is not indented.
			if sp.h == 0 && sp.start == 0 && len(fs.doc.lines) > 0 && !isBlank(sp.seg[0]) && !isBlank(fs.doc.lines[0].text) {
				model, file = append(model, sp.seg[0]), append(file, fs.doc.lines[0].text)
			}
		}
		plan = planIndent(model, file, st)
	}
	if plan.evidence && !plan.verbatim && (!plan.global || nonBlankPairs(model, file) < 2) {
		// A shifted indentation is believed only when at least two anchor
		// lines agree on it; one look-alike line at another depth is how a
		// snippet meant for other code lands in the wrong place.
		return nil, "the snippet's unchanged lines do not line up with the file's indentation; copy them exactly"
	}
	if !plan.evidence {
		for _, sp := range spots {
			m, f := similarPairs(sp.seg[sp.h:len(sp.seg)-sp.t], fs.window(sp.start+sp.h, sp.end-sp.t-sp.start-sp.h), 0.7)
			model, file = append(model, m...), append(file, f...)
		}
		plan = planIndent(model, file, st)
	}
	if !plan.verbatim && !plan.global {
		plan.rel = localRel(model, file, []int{-1}, 0, st.tabsOnly)
	}
	pl := make([]placement, len(spots))
	for k, sp := range spots {
		seg, h, t := sp.seg, sp.h, sp.t
		out := make([]string, len(seg))
		for i, l := range seg {
			switch {
			case i < h:
				out[i] = fs.doc.lines[sp.start+i].text
			case i >= len(seg)-t:
				out[i] = fs.doc.lines[sp.end-(len(seg)-i)].text
			case plan.verbatim || isBlank(l):
				out[i] = l
			default:
				out[i] = reindent(l, plan.rel)
			}
		}
		pl[k] = placement{start: sp.start, end: sp.end, repl: out}
	}
	return pl, ""
}

// edgePairs returns, for a segment that runs to the start or the end of
// the file, its first or last lines that are the file's own first or last
// lines (compared loosely): anchors as good as the searched ones.
func (fs *fileState) edgePairs(sp segSpot) (model, file []string) {
	seg, n := sp.seg, len(fs.doc.lines)
	if sp.h == 0 && sp.start == 0 {
		for i := 0; i < 3 && i < len(seg)-sp.t && i < sp.end; i++ {
			if normalize(levelUnicode, seg[i]) != normalize(levelUnicode, fs.doc.lines[i].text) {
				break
			}
			model, file = append(model, seg[i]), append(file, fs.doc.lines[i].text)
		}
	}
	if sp.t == 0 && sp.end == n {
		for i := 1; i <= 3 && i <= len(seg)-sp.h && n-i >= sp.start; i++ {
			a, b := seg[len(seg)-i], fs.doc.lines[n-i].text
			if normalize(levelUnicode, a) != normalize(levelUnicode, b) {
				break
			}
			model, file = append(model, a), append(file, b)
		}
	}
	return model, file
}

// maxUnshown is how many file lines a lazy segment may delete without
// showing them before the merge is refused as implausible.
const maxUnshown = 40

// unshownLines counts the file lines between a segment's anchors that do
// not appear (whitespace-insensitively) among the segment's new lines: the
// lines the merge deletes.
func unshownLines(seg, region []string) int {
	have := map[string]int{}
	for _, l := range seg {
		have[collapse(l)]++
	}
	n := 0
	for _, l := range region {
		k := collapse(l)
		if k == "" {
			continue
		}
		if have[k] > 0 {
			have[k]--
			continue
		}
		n++
	}
	return n
}

// nonBlankPairs counts the anchor lines with content on both sides.
func nonBlankPairs(model, file []string) int {
	n := 0
	for i := range model {
		if !isBlank(model[i]) && !isBlank(file[i]) {
			n++
		}
	}
	return n
}

// similarPairs pairs new lines with the replaced file lines they resemble
// (same order, similarity at least minSim), as indentation evidence when the
// anchors show too little.
func similarPairs(model, file []string, minSim float64) (m, f []string) {
	j := 0
	for _, l := range model {
		if isBlank(l) {
			continue
		}
		for k := j; k < len(file); k++ {
			if !isBlank(file[k]) && ratio(collapse(l), collapse(file[k])) >= minSim {
				m, f = append(m, l), append(f, file[k])
				j = k + 1
				break
			}
		}
	}
	return m, f
}

func firstNonBlank(lines []string) string {
	for _, l := range lines {
		if !isBlank(l) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// lastNonBlank returns the last non-blank line, trimmed.
func lastNonBlank(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if !isBlank(lines[i]) {
			return strings.TrimSpace(lines[i])
		}
	}
	return ""
}
