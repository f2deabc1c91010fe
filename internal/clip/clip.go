// Package clip cuts text to a byte budget without splitting a UTF-8
// character, and marks the cut. Text cut this way goes into prompts, GitHub
// comments and logs, where half a character is invalid UTF-8.
//
// It is pure string handling: no I/O, and nothing of ours is imported.
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
