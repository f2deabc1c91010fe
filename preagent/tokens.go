package preagent

import (
	"strings"

	"github.com/issuesmith/issuesmith/llm"
)

// tokenMemo remembers the token count of each message the session has
// measured. Counting is the explorer's hottest path: every step measures the
// whole conversation, which is mostly unchanged since the last step.
type tokenMemo map[string]int

// count returns llm.CountTokens(msgs), measuring each distinct message once.
// CountTokens is additive over messages past a fixed reply overhead, which
// is what makes per-message memoisation exact.
func (m tokenMemo) count(msgs []llm.Message) int {
	if len(msgs) == 0 {
		return 0
	}
	// With R the reply overhead and E an empty message: one empty message
	// counts R+E and two count R+2E.
	one, two := llm.CountTokens([]llm.Message{{}}), llm.CountTokens([]llm.Message{{}, {}})
	reply := 2*one - two
	total := reply
	for _, msg := range msgs {
		k := memoKey(msg)
		n, ok := m[k]
		if !ok {
			n = llm.CountTokens([]llm.Message{msg}) - reply
			if len(m) > 4096 {
				clear(m) // bound memory on very long runs
			}
			m[k] = n
		}
		total += n
	}
	return total
}

func memoKey(msg llm.Message) string {
	var b strings.Builder
	b.WriteString(msg.Role)
	b.WriteByte(0)
	b.WriteString(msg.Name)
	b.WriteByte(0)
	for _, tc := range msg.ToolCalls {
		b.WriteString(tc.Name + "\x00" + tc.Arguments + "\x00")
	}
	b.WriteByte(1)
	b.WriteString(msg.Content)
	return b.String()
}
