package llm

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// codec loads the o200k_base BPE tables (embedded, offline) once, on first
// use; it is read-only afterwards and safe for concurrent use.
var codec = sync.OnceValue(func() tokenizer.Codec {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		// The tables are compiled in; failure here is a broken build.
		panic("llm: loading o200k_base tokenizer: " + err.Error())
	}
	return c
})

// CountText returns the number of o200k_base tokens in s. Other model
// families tokenise differently; treat the count as an estimate for
// budgets and compression thresholds, not for billing.
func CountText(s string) int {
	if s == "" {
		return 0
	}
	n, err := codec().Count(s)
	if err != nil {
		// Count fails only on invalid UTF-8 in strict mode; fall back to
		// the common 4-bytes-per-token rule.
		return (len(s) + 3) / 4
	}
	return n
}

// Per-message framing overhead of the chat format (OpenAI cookbook).
const (
	tokensPerMessage = 3
	tokensPerReply   = 3
)

// CountTokens estimates the prompt tokens of msgs: content, tool calls,
// names and the chat framing. Reasoning is not counted because it is never
// sent back.
func CountTokens(msgs []Message) int {
	if len(msgs) == 0 {
		return 0
	}
	n := tokensPerReply
	for _, m := range msgs {
		n += tokensPerMessage + CountText(m.Content)
		if m.Name != "" {
			n += 1 + CountText(m.Name)
		}
		for _, tc := range m.ToolCalls {
			n += tokensPerMessage + CountText(tc.Name) + CountText(tc.Arguments)
		}
	}
	return n
}
