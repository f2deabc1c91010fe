package ghtext

import (
	"regexp"
	"strings"
)

// Text the bot posts that came from the model (or was quoted from an
// untrusted author) must not act on GitHub: an @-mention notifies people or
// whole teams, "fixes #12" closes another issue when the pull request merges,
// and an HTML comment hides everything after it from the reader while the
// bot's parsers still read it (a plan step nobody sees but the coder does).
var (
	mentionRE = regexp.MustCompile(`(^|[^A-Za-z0-9_/])@([A-Za-z0-9][A-Za-z0-9-]*)`)
	closingRE = regexp.MustCompile(`(?i)\b(close[sd]?|fix(?:e[sd])?|resolve[sd]?)(:?\s+)` +
		`((?:[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)?#\d+|GH-\d+|https?://\S+/(?:issues|pull)/\d+)`)
)

// zwsp is a zero-width space as an HTML entity: invisible when rendered, it
// breaks "@name" and "fixes" for GitHub's mention and closing-keyword
// detection in both the Markdown source and the rendered text.
const zwsp = "&#8203;"

// Defuse returns model-written Markdown made inert for a GitHub comment, PR
// body or commit message: @-mentions become "@&#8203;name", closing keywords
// before an issue reference ("fixes #12") get a zero-width space inside the
// keyword, and "<!--" is escaped so no part of the text can hide the rest.
// Code spans and fences (a backtick run closed by a run of the same length,
// not escaped) are left alone: GitHub does not act on text there. Defuse adds
// no backticks and is idempotent.
func Defuse(text string) string {
	text = strings.ReplaceAll(text, "<!--", "&lt;!--")
	var b strings.Builder
	plain := 0 // start of the plain text not yet written
	for i := 0; i < len(text); {
		if text[i] != '`' {
			i++
			continue
		}
		n := backticks(text, i)
		end := closingRun(text, i, n)
		if end == 0 || trailingBackslashes(text[:i])%2 == 1 {
			i += n // unclosed or escaped: literal backticks in plain text
			continue
		}
		b.WriteString(defusePlain(text[plain:i]))
		b.WriteString(text[i:end]) // a code span, verbatim
		i, plain = end, end
	}
	b.WriteString(defusePlain(text[plain:]))
	return b.String()
}

func defusePlain(s string) string {
	s = mentionRE.ReplaceAllString(s, "$1@"+zwsp+"$2")
	return closingRE.ReplaceAllStringFunc(s, func(m string) string {
		return m[:1] + zwsp + m[1:]
	})
}

// backticks counts the backticks at s[i:].
func backticks(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// closingRun returns the end of the code span opened by the n backticks at
// s[i:] (just after its closing run of exactly n), or 0 when it is unclosed.
func closingRun(s string, i, n int) int {
	for j := i + n; j < len(s); {
		if s[j] != '`' {
			j++
			continue
		}
		m := backticks(s, j)
		if m == n {
			return j + m
		}
		j += m
	}
	return 0
}

func trailingBackslashes(s string) int {
	n := 0
	for n < len(s) && s[len(s)-1-n] == '\\' {
		n++
	}
	return n
}

// DefuseText is Defuse for plain text that is not rendered as Markdown, such
// as a commit message (GitHub closes "fixes #12" issues when a commit
// reaching the default branch says so) or a title: the zero-width space
// goes in as the character itself, and code spans are not special.
func DefuseText(text string) string {
	const zw = "\u200b"
	text = mentionRE.ReplaceAllString(text, "$1@"+zw+"$2")
	return closingRE.ReplaceAllStringFunc(text, func(m string) string {
		return m[:1] + zw + m[1:]
	})
}
