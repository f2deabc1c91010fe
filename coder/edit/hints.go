package edit

import "strings"

// choose picks one of several candidates (0-based starts) of a search of n
// lines using the block's hints, or reports false. Hints only ever choose:
// an anchor narrows to the candidates after it and before the next
// definition of the same kind; End of File keeps the candidate that ends
// the file; a line number picks the nearest candidate when it is clearly
// nearer than every other one.
func (fs *fileState) choose(cands []int, n int, h hints) (int, bool) {
	if h.atEOF {
		var at []int
		for _, c := range cands {
			if c+n == len(fs.doc.lines) {
				at = append(at, c)
			}
		}
		if len(at) == 1 {
			return at[0], true
		}
	}
	if len(h.anchors) > 0 {
		if c, ok := fs.chooseByAnchors(cands, h.anchors); ok {
			return c, true
		}
	}
	if h.line > 0 && !h.hold {
		return fs.chooseByLine(cands, h.line)
	}
	return 0, false
}

// chooseByAnchors finds the anchors in order (each must be unique after the
// previous one) and keeps the candidates inside the last anchor's scope: after
// it and before the next line that opens a definition of the same kind at
// the same indentation.
func (fs *fileState) chooseByAnchors(cands []int, anchors []string) (int, bool) {
	lines := fs.doc.lines
	pos, ok := fs.anchorLine(anchors)
	if !ok {
		return 0, false
	}
	anchor := lines[pos].text
	indent := leadWS(anchor)
	kind := firstWord(anchor)
	end := len(lines)
	for i := pos + 1; i < len(lines); i++ {
		t := lines[i].text
		if leadWS(t) == indent && firstWord(t) == kind && kind != "" {
			end = i
			break
		}
	}
	var in []int
	for _, c := range cands {
		if c >= pos && c < end {
			in = append(in, c)
		}
	}
	if len(in) == 1 {
		return in[0], true
	}
	return 0, false
}

// anchorLine finds Codex @@ anchors in order, each the only line after the
// previous one that equals it (whitespace and punctuation folded), and
// returns the last one's index.
func (fs *fileState) anchorLine(anchors []string) (int, bool) {
	lines := fs.doc.lines
	pos := -1
	for _, a := range anchors {
		want := collapse(fold(a))
		found := -1
		for i := pos + 1; i < len(lines); i++ {
			if collapse(fold(lines[i].text)) == want {
				if found >= 0 {
					return 0, false
				}
				found = i
			}
		}
		if found < 0 {
			return 0, false
		}
		pos = found
	}
	return pos, pos >= 0
}

// firstWord returns the first space-separated word of a trimmed line.
func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// chooseByLine maps the hint (a line of the original file) to the current
// content, corrects it by the error observed on earlier hinted blocks, and
// picks the nearest candidate when it is within reach and clearly nearer than
// the runner-up.
func (fs *fileState) chooseByLine(cands []int, hint int) (int, bool) {
	h := fs.mapHint(hint - 1)
	if fs.hasOff {
		h += fs.offset
	}
	best, second := -1, -1
	for _, c := range cands {
		d := abs(c - h)
		switch {
		case best < 0 || d < abs(best-h):
			second, best = best, c
		case second < 0 || d < abs(second-h):
			second = c
		}
	}
	d1, d2 := abs(best-h), abs(second-h)
	if d1 == 0 && d2 > 0 || d1 <= 10 && d2 >= 2*d1+10 {
		return best, true
	}
	return 0, false
}

// mapHint moves a 0-based line of the original file across the changes
// already applied.
func (fs *fileState) mapHint(h int) int {
	for _, s := range fs.splices {
		switch {
		case h >= s.at+s.oldN:
			h += s.newN - s.oldN
		case h > s.at:
			h = s.at
		}
	}
	return h
}

// observe records the hint error of a block placed uniquely, so later
// ambiguous blocks of the same file (diff line numbers all off by the same
// amount) can be settled.
func (fs *fileState) observe(hint, start int) {
	if hint <= 0 {
		return
	}
	fs.offset = start - fs.mapHint(hint-1)
	fs.hasOff = true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
