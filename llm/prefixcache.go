package llm

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// Automatic prefix caching as OpenAI documents it (DeepSeek and vLLM do
// much alike): a prompt's longest prefix equal to an earlier prompt's is
// served from the cache, counted once it reaches CacheMinTokens and then in
// whole CacheBlockTokens blocks.
const (
	CacheMinTokens   = 1024
	CacheBlockTokens = 128
)

// PrefixCache simulates a provider's automatic prefix cache for the
// servers that stand in for one (the replay oracle, llmtest): it remembers
// every prompt it is shown and says how many tokens of the next one such a
// cache would have served. Safe for concurrent use.
type PrefixCache struct {
	mu   sync.Mutex
	seen []string
}

// PromptText is msgs as the cache compares them: each message's role,
// text and tool calls in order, so a shared prefix ends where the
// conversations part.
func PromptText(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("\x00")
		b.WriteString(m.Role)
		b.WriteString("\x00")
		b.WriteString(m.Content)
		for _, c := range m.ToolCalls {
			b.WriteString(c.Name)
			b.WriteString(c.Arguments)
		}
	}
	return b.String()
}

// Cached returns the tokens of prompt (a PromptText) the cache serves, at
// most promptTokens, and remembers prompt.
func (c *PrefixCache) Cached(prompt string, promptTokens int) int {
	c.mu.Lock()
	best := 0
	for _, p := range c.seen {
		best = max(best, commonPrefix(p, prompt))
	}
	c.seen = append(c.seen, prompt)
	c.mu.Unlock()
	shared := prompt[:best]
	for len(shared) > 0 && !utf8.ValidString(shared) {
		shared = shared[:len(shared)-1] // a cut inside a character
	}
	return min(CachedTokens(CountText(strings.ReplaceAll(shared, "\x00", ""))), promptTokens)
}

// CachedTokens is what a shared prefix of n tokens is billed as cached.
func CachedTokens(n int) int {
	if n < CacheMinTokens {
		return 0
	}
	return n / CacheBlockTokens * CacheBlockTokens
}

// commonPrefix is the length in bytes of a's and b's common prefix.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
