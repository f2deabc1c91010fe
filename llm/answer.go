package llm

import (
	"regexp"
	"strings"
)

// thinkRe matches a reasoning section a model left in its answer text.
var thinkRe = regexp.MustCompile(`(?s)<think(?:ing)?>.*?</think(?:ing)?>`)

// AnswerText is the part of a reply's text that is the answer: reasoning in
// <think> or <thinking> tags removed, and everything before a closing tag
// that has no opening one (some servers strip only the opening tag). The
// client already moves a leading think block to Message.Reasoning; this is
// for text that reached a role another way (history, the text protocol).
// Drafts inside reasoning must never be taken as the answer.
func AnswerText(text string) string {
	text = thinkRe.ReplaceAllString(text, "")
	for _, tag := range []string{"</think>", "</thinking>"} {
		if i := strings.LastIndex(text, tag); i >= 0 {
			text = text[i+len(tag):]
		}
	}
	return text
}
