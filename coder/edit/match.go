package edit

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// level is one step of the matching cascade, from strict to loose.
type level int

const (
	levelExact      level = iota // byte-equal lines
	levelTrailing                // trailing whitespace ignored
	levelIndent                  // one uniform indentation offset (tabs and spaces converted)
	levelWhitespace              // runs of whitespace collapsed, leading whitespace ignored
	levelUnicode                 // as levelWhitespace, with smart quotes, dashes and odd spaces folded
	numLevels
)

// name is the level's name in reports.
func (lv level) name() string {
	switch lv {
	case levelExact:
		return "exact"
	case levelTrailing:
		return "trailing_ws"
	case levelIndent:
		return "indent"
	case levelWhitespace:
		return "whitespace"
	case levelUnicode:
		return "unicode"
	}
	return "unknown"
}

// normalize returns the form of s compared at level lv.
func normalize(lv level, s string) string {
	switch lv {
	case levelExact:
		return s
	case levelTrailing:
		return strings.TrimRight(s, " \t\f\v\r")
	case levelIndent:
		return strings.TrimSpace(s)
	case levelWhitespace:
		return collapse(s)
	default:
		return collapse(fold(s))
	}
}

// collapse trims s and replaces every run of whitespace with one space.
func collapse(s string) string {
	s = strings.TrimSpace(s)
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == ' ' && i+1 < len(s) && isSpaceByte(s[i+1]) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); i++ {
		if isSpaceByte(s[i]) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
}

// fold maps typographic punctuation a model may have produced to ASCII:
// smart quotes, dashes, the ellipsis and unusual spaces, one character for
// one. A byte that is not UTF-8 becomes U+FFFD, as the model was shown it.
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		chunk := s[i : i+size]
		i += size
		if r == utf8.RuneError && size == 1 {
			// A byte that is not UTF-8 (a Latin-1 file) reached the model
			// as U+FFFD, one per byte, as JSON encoders write it.
			b.WriteString("\uFFFD")
			continue
		}
		switch r {
		case '‘', '’', '‚', '‛', '′':
			chunk = "'"
		case '“', '”', '„', '‟', '″', '«', '»':
			chunk = `"`
		case '‐', '‑', '‒', '–', '—', '―', '−':
			chunk = "-"
		case '…':
			chunk = "..."
		case '\u00a0', '\u2007', '\u202f', '\u2009', '\u200a', '\u2002', '\u2003', '\u3000':
			chunk = " "
		case '\u200b', '\ufeff':
			chunk = ""
		}
		b.WriteString(chunk)
	}
	return b.String()
}

// normCache holds the normalized lines of a document per level, computed
// on first use and kept in step with splices.
type normCache struct {
	lv [numLevels][]string
}

// get returns the normalized lines of d at level lv.
func (c *normCache) get(d *doc, lv level) []string {
	if c.lv[lv] == nil {
		out := make([]string, len(d.lines))
		for i, l := range d.lines {
			out[i] = normalize(lv, l.text)
		}
		c.lv[lv] = out
	}
	return c.lv[lv]
}

// splice keeps every computed level in step with doc.splice.
func (c *normCache) splice(start, end int, repl []string) {
	for lv := range c.lv {
		if c.lv[lv] == nil {
			continue
		}
		nl := make([]string, len(repl))
		for i, r := range repl {
			nl[i] = normalize(level(lv), r)
		}
		c.lv[lv] = slices.Replace(c.lv[lv], start, end, nl...)
	}
}

// findAll returns the start of every window of nf equal to ns (already
// normalized). It scans for one line of ns, then verifies the window.
func findAll(nf, ns []string) []int {
	n, m := len(nf), len(ns)
	if m == 0 || m > n {
		return nil
	}
	// The longest line is the pivot: most file lines differ from it in
	// length, which fails the comparison without reading the bytes.
	pivot := 0
	for k := range ns {
		if len(ns[k]) > len(ns[pivot]) {
			pivot = k
		}
	}
	var out []int
	key := ns[pivot]
	for i := pivot; i <= n-m+pivot; i++ {
		if nf[i] != key {
			continue
		}
		s := i - pivot
		ok := true
		for k := 0; k < m; k++ {
			if nf[s+k] != ns[k] {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, s)
		}
	}
	return out
}

// findAllLines is findAll on the raw lines (the exact level), without
// copying them.
func findAllLines(lines []line, ns []string) []int {
	n, m := len(lines), len(ns)
	if m == 0 || m > n {
		return nil
	}
	pivot := 0
	for k := range ns {
		if len(ns[k]) > len(ns[pivot]) {
			pivot = k
		}
	}
	var out []int
	key := ns[pivot]
	for i := pivot; i <= n-m+pivot; i++ {
		if lines[i].text != key {
			continue
		}
		s, ok := i-pivot, true
		for k := 0; k < m && ok; k++ {
			ok = lines[s+k].text == ns[k]
		}
		if ok {
			out = append(out, s)
		}
	}
	return out
}

// candidates returns the starts of the windows matching search at level lv.
// At levelIndent a window must also keep one indentation relation for all
// its lines (see indentMap).
func (fs *fileState) candidates(lv level, search []string) []int {
	if lv == levelExact {
		return findAllLines(fs.doc.lines, search)
	}
	nf := fs.norm.get(fs.doc, lv)
	ns := make([]string, len(search))
	for i, s := range search {
		ns[i] = normalize(lv, s)
	}
	found := findAll(nf, ns)
	if lv != levelIndent {
		return found
	}
	out := found[:0]
	for _, s := range found {
		if _, ok := indentMap(search, fs.window(s, len(search))); ok {
			out = append(out, s)
		}
	}
	return out
}

// window returns the texts of n lines from start.
func (fs *fileState) window(start, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fs.doc.lines[start+i].text
	}
	return out
}
