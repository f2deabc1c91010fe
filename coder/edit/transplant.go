package edit

import (
	"strings"
	"unicode/utf8"
)

// maxTransplant bounds the line length transplant works on (it is quadratic
// in the line length).
const maxTransplant = 2000

// changedPairs pairs each REPLACE line that is not a copy of a SEARCH line
// with the SEARCH line it rewrites: between two copied lines (or the edges),
// a run of changed REPLACE lines as long as the run of SEARCH lines it
// replaces is paired line by line. Other lines get -1.
func changedPairs(al []int, nSearch int) []int {
	out := make([]int, len(al))
	for j := range out {
		out[j] = -1
	}
	prevS, j0 := -1, 0
	for j := 0; j <= len(al); j++ {
		k := nSearch
		if j < len(al) {
			if al[j] < 0 {
				continue
			}
			k = al[j]
		}
		if k > prevS && k-(prevS+1) == j-j0 {
			for i := j0; i < j; i++ {
				out[i] = prevS + 1 + (i - j0)
			}
		}
		if k > prevS {
			prevS = k
		}
		j0 = j + 1
	}
	return out
}

// transplant keeps the file's own text in a rewritten line. s is the SEARCH
// line as the model wrote it, f the file line it matched (equal to s only
// after whitespace and typographic folding), r the model's new line. The
// parts r shares with s at its start and end are taken from f instead, so a
// smart quote, a dash or aligned spacing in the file survives an edit of
// another part of the line. Leading whitespace is not touched (indentation
// is re-based elsewhere); r is returned as is when nothing can be kept.
func transplant(s, f, r string) string {
	ls, lf, lr := leadWS(s), leadWS(f), leadWS(r)
	s, f, body := s[len(ls):], f[len(lf):], r[len(lr):]
	if s == f || len(s) > maxTransplant || len(f) > maxTransplant || len(body) > maxTransplant {
		return r
	}
	p0 := commonPrefix(s, body)
	p := p0
	for p > 0 && isSpaceByte(s[p-1]) {
		p--
	}
	q0 := commonSuffix(s[p:], body[p:])
	q := q0
	for q > 0 && isSpaceByte(s[len(s)-q]) {
		q--
	}
	fp, ok := mapPrefix(s[:p], f)
	if !ok {
		return r
	}
	fq, ok := mapSuffix(s[len(s)-q:], f)
	if !ok || fp > len(f)-fq {
		return r
	}
	// Whitespace the model kept next to the kept parts (the gap after
	// "key:" or before a comment) is the file's own run, so alignment
	// survives.
	core, head, tail := body[p:len(body)-q], "", ""
	if run := leadWS(f[fp : len(f)-fq]); p0 > p && run != "" && len(core) >= p0-p {
		head, core = run, core[p0-p:]
	}
	rest := f[fp+len(head) : len(f)-fq]
	if run := rest[len(strings.TrimRight(rest, " \t")):]; q0 > q && run != "" && len(core) >= q0-q {
		if len(head)+len(run) <= len(f)-fq-fp {
			tail, core = run, core[:len(core)-(q0-q)]
		}
	}
	out := f[:fp] + head + core + tail + f[len(f)-fq:]
	if collapse(fold(out)) != collapse(fold(body)) {
		return r
	}
	return lr + out
}

// commonPrefix is the length of the longest common prefix of a and b that
// ends on a rune boundary.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n--
	}
	return n
}

// commonSuffix is the length of the longest common suffix of a and b that
// starts on a rune boundary.
func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	for n > 0 && !utf8.RuneStart(a[len(a)-n]) {
		n--
	}
	return n
}

// mapPrefix finds the shortest prefix of f that ends on a non-space rune
// and reads the same as pre once folded and collapsed.
func mapPrefix(pre, f string) (int, bool) {
	if pre == "" {
		return 0, true
	}
	want := collapse(fold(pre))
	for i := 1; i <= len(f); i++ {
		if i < len(f) && !utf8.RuneStart(f[i]) || isSpaceByte(f[i-1]) {
			continue
		}
		if collapse(fold(f[:i])) == want {
			return i, true
		}
	}
	return 0, false
}

// mapSuffix finds the shortest suffix of f that starts on a non-space rune
// and reads the same as suf once folded and collapsed; it returns its length.
func mapSuffix(suf, f string) (int, bool) {
	if suf == "" {
		return 0, true
	}
	want := collapse(fold(suf))
	for n := 1; n <= len(f); n++ {
		i := len(f) - n
		if !utf8.RuneStart(f[i]) || isSpaceByte(f[i]) {
			continue
		}
		if collapse(fold(f[i:])) == want {
			return n, true
		}
	}
	return 0, false
}
