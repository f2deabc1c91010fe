package repo

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// matcher finds matching lines in a file's bytes. When the pattern contains
// a literal every match must include (all of it for a plain-text search),
// the file is scanned for that literal with bytes.Index, jumping from one
// occurrence to the next, and only the lines holding it are tested with the
// regular expression; ASCII case folding keeps offsets, so a folded search
// runs on a lower-cased copy. Other patterns rule a file out with one
// multi-line regexp pass, then test it line by line.
type matcher struct {
	line  *regexp.Regexp
	lit   []byte // required literal, lower-cased when fold; nil if none
	fold  bool   // lit is matched without regard to ASCII case
	exact bool   // the literal is the whole pattern: no regexp check needed
	buf   *regexp.Regexp
}

// newMatcher builds the matcher for re; plain says re is a case-sensitive
// quoted literal.
func newMatcher(re *regexp.Regexp, plain bool) *matcher {
	m := &matcher{line: re}
	src := re.String()
	if parsed, err := syntax.Parse(src, syntax.Perl); err == nil {
		if lit, fold := requiredLiteral(parsed.Simplify()); len(lit) >= 2 {
			s := string(lit)
			// A literal holding a line break can never match within a line.
			if (!fold || isASCII(s)) && !strings.ContainsAny(s, "\r\n") {
				if fold {
					s = strings.ToLower(s)
				}
				m.lit, m.fold, m.exact = []byte(s), fold, plain
			}
		}
	}
	if !strings.Contains(src, `\A`) && !strings.Contains(src, `\z`) {
		m.buf, _ = regexp.Compile("(?m)" + src)
	}
	return m
}

// requiredLiteral returns the longest literal every match of re contains.
func requiredLiteral(re *syntax.Regexp) ([]rune, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []rune
		var bestFold bool
		for _, sub := range re.Sub {
			if lit, fold := requiredLiteral(sub); len(lit) > len(best) {
				best, bestFold = lit, fold
			}
		}
		return best, bestFold
	}
	return nil, false
}

// scratch is a worker's reusable buffers.
type scratch struct {
	read  []byte
	lower []byte
}

// find calls hit with the 1-based number and bytes of every matching line.
func (m *matcher) find(data []byte, sc *scratch, hit func(n int, line []byte)) {
	if m.lit == nil || m.fold && foldRisk(m.lit, data) {
		m.findByLine(data, hit)
		return
	}
	hay := data
	if m.fold {
		sc.lower = asciiLower(sc.lower[:0], data)
		hay = sc.lower
	}
	n, counted, pos := 1, 0, 0
	for pos < len(hay) {
		i := bytes.Index(hay[pos:], m.lit)
		if i < 0 {
			return
		}
		i += pos
		start := bytes.LastIndexByte(data[:i], '\n') + 1
		end := len(data)
		if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
			end = i + j
		}
		n += bytes.Count(data[counted:start], []byte{'\n'})
		counted = start
		line := bytes.TrimSuffix(data[start:end], []byte{'\r'})
		if m.exact || m.line.Match(line) {
			hit(n, line)
		}
		pos = end + 1
	}
}

// findByLine tests every line of a file that may match.
func (m *matcher) findByLine(data []byte, hit func(n int, line []byte)) {
	if m.buf != nil && !m.buf.Match(data) && bytes.IndexByte(data, '\r') < 0 {
		return // CRLF files go line by line: "$" in the buffer stops before "\r"
	}
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if m.line.Match(line) {
			hit(n, line)
		}
	}
}

// foldRisk reports whether Unicode case folding could match where ASCII
// folding does not: "k" and "s" also fold to the Kelvin sign (U+212A) and
// the long s (U+017F).
func foldRisk(lit, data []byte) bool {
	if !bytes.ContainsAny(lit, "ks") {
		return false
	}
	return bytes.Contains(data, []byte("\u212a")) || bytes.Contains(data, []byte("\u017f"))
}

// asciiLower appends data with ASCII letters lower-cased to dst.
func asciiLower(dst, data []byte) []byte {
	dst = append(dst, data...)
	for i, c := range dst {
		if 'A' <= c && c <= 'Z' {
			dst[i] = c + 'a' - 'A'
		}
	}
	return dst
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
