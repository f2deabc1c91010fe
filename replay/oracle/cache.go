package oracle

import (
	"strings"
	"unicode/utf8"

	"github.com/issuesmith/issuesmith/llm"
)

// Automatic prefix caching as OpenAI documents it (and DeepSeek and vLLM
// do much alike): a prompt's longest prefix equal to an earlier prompt's is
// served from the cache, counted once it reaches cacheMin tokens and then
// in whole cacheBlock-token blocks.
const (
	cacheMin   = 1024
	cacheBlock = 128
)

// prefixCache remembers the prompts of one instance's calls.
type prefixCache struct {
	seen []string
}

// promptText is a request's prompt as the cache compares it: the messages'
// texts in order, each after its role, so that a prefix ends where the
// earlier conversation stopped being the same.
func promptText(req request) string {
	var b strings.Builder
	for _, m := range req.Messages {
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

// cached returns the tokens of prompt served from the cache (at most
// prompt tokens in), and remembers prompt for later calls.
func (c *prefixCache) cached(prompt string, in int) int {
	best := 0
	for _, p := range c.seen {
		best = max(best, commonPrefix(p, prompt))
	}
	c.seen = append(c.seen, prompt)
	shared := prompt[:best]
	for len(shared) > 0 && !utf8.ValidString(shared) {
		shared = shared[:len(shared)-1] // a cut inside a character
	}
	return min(cachedTokens(llm.CountText(strings.ReplaceAll(shared, "\x00", ""))), in)
}

// cachedTokens is what a shared prefix of n tokens is billed as cached.
func cachedTokens(n int) int {
	if n < cacheMin {
		return 0
	}
	return n / cacheBlock * cacheBlock
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
