package summaries

import "strings"

// isIdentStart and isIdentByte classify ASCII identifier bytes.
func isIdentStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isIdentByte(c byte) bool  { return isIdentStart(c) || (c >= '0' && c <= '9') }

// eachIdent calls fn for every ASCII identifier ([A-Za-z_][A-Za-z0-9_]*) in s.
func eachIdent(s string, fn func(id string)) {
	for i := 0; i < len(s); {
		c := s[i]
		if !isIdentStart(c) {
			if c >= '0' && c <= '9' { // skip a number with its letters (0x1f, 10px)
				for i < len(s) && isIdentByte(s[i]) {
					i++
				}
				continue
			}
			i++
			continue
		}
		j := i + 1
		for j < len(s) && isIdentByte(s[j]) {
			j++
		}
		fn(s[i:j])
		i = j
	}
}

// splitIdent splits an identifier into its lower-cased words on underscores,
// digit runs and camelCase humps: "parseHTTPResponse_v2" → parse, http,
// response, v, 2.
func splitIdent(id string, fn func(part string)) {
	start := -1
	emit := func(end int) {
		if start >= 0 && end > start {
			fn(strings.ToLower(id[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c == '_':
			emit(i)
		case c >= '0' && c <= '9':
			if start >= 0 && !(id[start] >= '0' && id[start] <= '9') {
				emit(i)
			}
			if start < 0 {
				start = i
			}
		case c >= 'A' && c <= 'Z':
			if start >= 0 {
				prev := id[i-1]
				nextLower := i+1 < len(id) && id[i+1] >= 'a' && id[i+1] <= 'z'
				if (prev >= 'a' && prev <= 'z') || (prev >= '0' && prev <= '9') ||
					(prev >= 'A' && prev <= 'Z' && nextLower) {
					emit(i)
				}
			}
			if start < 0 {
				start = i
			}
		default: // lower case
			if start >= 0 && id[start] >= '0' && id[start] <= '9' {
				emit(i)
			}
			if start < 0 {
				start = i
			}
		}
	}
	emit(len(id))
}

// Terms returns the search terms of text: every identifier lower-cased, and
// its camelCase/snake_case words when they differ from it. Terms of one
// character are dropped.
func Terms(text string) []string {
	var out []string
	eachTerm(text, func(t string) { out = append(out, t) })
	return out
}

// eachTerm is Terms without the slice.
func eachTerm(text string, fn func(string)) {
	eachIdent(text, func(id string) {
		lw := strings.ToLower(id)
		if len(lw) > 1 {
			fn(lw)
		}
		splitIdent(id, func(p string) {
			if len(p) > 1 && p != lw {
				fn(p)
			}
		})
	})
}
