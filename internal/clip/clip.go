package clip

import "unicode/utf8"

// Bytes returns s when it is at most n bytes long; otherwise its longest
// prefix of at most n bytes that ends on a character boundary, followed by
// mark (which is not counted in n).
func Bytes(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + mark
}
