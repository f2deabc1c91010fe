package edit

import (
	"slices"
	"strings"
)

// bom is the UTF-8 byte order mark, kept on files that start with it.
const bom = "\xef\xbb\xbf"

// line is one line of a file with its own terminator ("\n", "\r\n" or none
// for a last line without newline), so untouched lines keep their exact
// bytes.
type line struct {
	text string
	eol  eol
}

// eol is a line terminator. A byte instead of a string keeps a line at 24
// bytes: a 20,000-line file is scanned once per block.
type eol uint8

// The line terminators.
const (
	eolNone eol = iota // the last line of a file without final newline
	eolLF              // "\n"
	eolCRLF            // "\r\n"
)

// String returns the terminator's bytes.
func (e eol) String() string {
	switch e {
	case eolLF:
		return "\n"
	case eolCRLF:
		return "\r\n"
	}
	return ""
}

// doc is a file's content split into lines. It may hold any bytes: matching
// works on bytes and only the Unicode folding level decodes runes.
type doc struct {
	bom     bool
	lines   []line
	eol     eol  // the dominant terminator, used for new lines
	finalNL bool // whether the last line ends with a terminator
}

// parseDoc splits content into lines, remembering the BOM, the dominant line
// terminator and whether the content ends with one.
func parseDoc(s string) *doc {
	d := &doc{eol: eolLF, finalNL: true}
	if strings.HasPrefix(s, bom) {
		d.bom = true
		s = s[len(bom):]
	}
	d.lines = make([]line, 0, strings.Count(s, "\n")+1)
	crlf, lf := 0, 0
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			d.lines = append(d.lines, line{text: s})
			d.finalNL = false
			break
		}
		if i > 0 && s[i-1] == '\r' {
			d.lines = append(d.lines, line{text: s[:i-1], eol: eolCRLF})
			crlf++
		} else {
			d.lines = append(d.lines, line{text: s[:i], eol: eolLF})
			lf++
		}
		s = s[i+1:]
	}
	if crlf > lf {
		d.eol = eolCRLF
	}
	return d
}

// bytes renders the document back, byte for byte for untouched lines.
func (d *doc) bytes() []byte {
	n := len(bom)
	for _, l := range d.lines {
		n += len(l.text) + len(l.eol.String())
	}
	buf := make([]byte, 0, n)
	if d.bom {
		buf = append(buf, bom...)
	}
	for _, l := range d.lines {
		buf = append(buf, l.text...)
		buf = append(buf, l.eol.String()...)
	}
	return buf
}

// texts returns the line texts without terminators.
func (d *doc) texts() []string {
	out := make([]string, len(d.lines))
	for i, l := range d.lines {
		out[i] = l.text
	}
	return out
}

// clone returns an independent copy of the document.
func (d *doc) clone() *doc {
	c := *d
	c.lines = append([]line(nil), d.lines...)
	return &c
}

// splice replaces lines [start, end) with repl. A new line takes the
// terminator of the line it replaces (extra lines that of the last replaced
// line or of the line before); the final-newline state of the document is
// kept.
func (d *doc) splice(start, end int, repl []string) {
	nl := make([]line, len(repl))
	for i, r := range repl {
		nl[i] = line{text: r, eol: d.eolFor(start, end, i)}
	}
	// In place: a 20,000-line file is edited without copying it per block.
	d.lines = slices.Replace(d.lines, start, end, nl...)
	d.fixEnds(start, start+len(repl))
}

// eolFor picks the terminator for the i-th replacement of lines [start, end).
func (d *doc) eolFor(start, end, i int) eol {
	var e eol
	switch {
	case end > start:
		e = d.lines[start+min(i, end-start-1)].eol
	case start > 0:
		e = d.lines[start-1].eol
	case start < len(d.lines):
		e = d.lines[start].eol
	}
	if e == eolNone {
		e = d.eol
	}
	return e
}

// fixEnds restores the invariant that every line but the last has a
// terminator and the last one has one exactly when finalNL is set, for a
// change that put lines [start, end) in place.
func (d *doc) fixEnds(start, end int) {
	n := len(d.lines)
	for i := max(0, start-1); i < min(end+1, n-1); i++ {
		if d.lines[i].eol == eolNone {
			d.lines[i].eol = d.eol
		}
	}
	if n == 0 {
		return
	}
	if n >= 2 && d.lines[n-2].eol == eolNone {
		d.lines[n-2].eol = d.eol
	}
	switch {
	case d.finalNL && d.lines[n-1].eol == eolNone:
		d.lines[n-1].eol = d.eol
	case !d.finalNL:
		d.lines[n-1].eol = eolNone
	}
}

// setTexts replaces the whole content with lines, keeping BOM, terminator
// style and final-newline state.
func (d *doc) setTexts(lines []string) {
	d.splice(0, len(d.lines), lines)
}

// splitEditLines splits model-written text into lines, dropping "\r" before
// "\n" (an edit written with CRLF still matches an LF file and vice versa).
// A final newline does not make an extra empty line.
func splitEditLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = strings.TrimSuffix(p, "\r")
	}
	return parts
}

// equalLines reports whether two line slices are identical.
func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// isBlank reports whether s holds only spaces and tabs (or nothing).
func isBlank(s string) bool {
	return strings.TrimLeft(s, " \t\f\v\r") == ""
}
