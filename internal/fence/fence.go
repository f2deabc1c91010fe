package fence

import "strings"

// For returns a backtick fence longer than any run of backticks in s, and at
// least min (and three) backticks long.
func For(s string, min int) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, min, longest+1))
}

// Wrap returns s fenced by For(s, 3): the opening fence followed by info (a
// language tag, or empty), s with exactly one final newline, and the closing
// fence without a newline after it.
func Wrap(s, info string) string {
	f := For(s, 3)
	return f + info + "\n" + strings.TrimRight(s, "\n") + "\n" + f
}
