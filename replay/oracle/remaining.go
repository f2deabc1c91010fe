package oracle

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
)

// appliedRe finds a block the coder's report lists as in the file.
var appliedRe = regexp.MustCompile(`(?m)^Block (\d+)(?: \([^)]*\))?: (?:applied|already applied)`)

// remaining returns the blocks not yet applied, in order: for each earlier
// answer of the oracle, the blocks it sent (numbered in message order, as
// the edit engine numbers them) that the report after it lists as applied
// or already applied are done. A report that rolled the answer back, or a
// reply the coder did not apply (cut off), applied none.
func remaining(msgs []llm.Message, path string, blocks []Block) []Block {
	done := make([]bool, len(blocks))
	for i, m := range msgs {
		if m.Role != llm.Assistant || i+1 >= len(msgs) {
			continue
		}
		sent := sentBlocks(answerText(m.Content), blocks)
		if len(sent) == 0 {
			continue
		}
		ok := appliedNumbers(msgs[i+1].Content, len(sent))
		for n, g := range sent {
			if g >= 0 && ok[n+1] {
				done[g] = true
			}
		}
	}
	var out []Block
	for i, b := range blocks {
		if !done[i] {
			out = append(out, b)
		}
	}
	return out
}

// sentBlocks maps each block of an answer (in order) to the gold block it
// is, or -1 (a stale or draft block).
func sentBlocks(text string, blocks []Block) []int {
	var out []int
	for rest := text; ; {
		i := strings.Index(rest, "------- SEARCH\n")
		if i < 0 {
			return out
		}
		rest = rest[i:]
		g := -1
		for k, b := range blocks {
			if strings.HasPrefix(rest, blockText(b)) {
				g = k
				break
			}
		}
		out = append(out, g)
		rest = rest[len("------- SEARCH\n"):]
	}
}

// appliedNumbers reads the coder's report on an answer of n blocks: the
// block numbers it says are in the file.
func appliedNumbers(report string, n int) map[int]bool {
	ok := map[int]bool{}
	switch {
	case strings.Contains(report, "ROLLED BACK"):
		return ok
	case strings.HasPrefix(report, "All blocks applied."):
		for k := 1; k <= n; k++ {
			ok[k] = true
		}
		return ok
	}
	for _, m := range appliedRe.FindAllStringSubmatch(report, -1) {
		if k, err := strconv.Atoi(m[1]); err == nil {
			ok[k] = true
		}
	}
	return ok
}

// thinkRe matches a reasoning section in an answer.
var thinkRe = regexp.MustCompile(`(?s)<think>.*?</think>`)

// answerText is an answer as the coder reads it: reasoning dropped.
func answerText(text string) string {
	text = thinkRe.ReplaceAllString(text, "")
	if i := strings.LastIndex(text, "</think>"); i >= 0 {
		text = text[i+len("</think>"):]
	}
	return text
}
