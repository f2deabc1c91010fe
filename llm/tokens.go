package llm

import (
	"hash/maphash"
	"sync"
	"unicode/utf8"

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

const (
	memoMinLen  = 256     // shorter strings are cheaper to count than to track
	memoEntries = 1 << 14 // then the memo starts over
)

// TokenCounter counts like CountText and CountTokens, and remembers the
// counts of long strings. An owner that counts the same texts over and over
// (a client estimating usage for the same tool list and conversation every
// call) keeps one: tokenising runs at about 1 MB/s while hashing runs at
// GB/s. The memo never changes a result (a 64-bit hash collision could, with
// odds far below anything that matters for an estimate), and it is bounded.
// The zero value is not usable; call NewTokenCounter. Safe for concurrent use.
type TokenCounter struct {
	seed maphash.Seed
	mu   sync.Mutex
	m    map[uint64]int
}

// NewTokenCounter returns an empty counter.
func NewTokenCounter() *TokenCounter {
	return &TokenCounter{seed: maphash.MakeSeed(), m: map[uint64]int{}}
}

// Text returns CountText(s), from the memo when s is long and was counted before.
func (c *TokenCounter) Text(s string) int {
	if len(s) < memoMinLen {
		return CountText(s)
	}
	h := maphash.String(c.seed, s)
	c.mu.Lock()
	n, ok := c.m[h]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = CountText(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= memoEntries {
		clear(c.m)
	}
	c.m[h] = n
	return n
}

// Messages returns CountTokens(msgs), counting each text through c.
func (c *TokenCounter) Messages(msgs []Message) int {
	return countMessages(msgs, c.Text)
}

// CountText returns the number of o200k_base tokens in s. Other model
// families tokenise differently; treat the count as an estimate for
// budgets and compression thresholds, not for billing. Safe for concurrent
// use; a TokenCounter remembers the counts of repeated long strings.
func CountText(s string) int {
	if s == "" {
		return 0
	}
	n, err := codec().Count(s)
	if err != nil {
		// Count fails only on invalid UTF-8 in strict mode; fall back to
		// the common 4-bytes-per-token rule.
		n = (len(s) + 3) / 4
	}
	return n
}

// TruncateText returns the longest prefix of s of at most n tokens, cut
// at a token and UTF-8 boundary, in one tokenising pass (instead of
// counting shrinking prefixes). n <= 0 gives "".
func TruncateText(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s // a token is at least one byte
	}
	_, toks, err := codec().Encode(s)
	if err != nil || len(toks) <= n {
		if err != nil && len(s) > 4*n {
			return validPrefix(s, 4*n)
		}
		return s
	}
	size := 0
	for _, t := range toks[:n] {
		size += len(t)
	}
	return validPrefix(s, size)
}

// validPrefix cuts s to at most size bytes without splitting a rune.
func validPrefix(s string, size int) string {
	for size > 0 && size < len(s) && !utf8.RuneStart(s[size]) {
		size--
	}
	return s[:size]
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
	return countMessages(msgs, CountText)
}

func countMessages(msgs []Message, text func(string) int) int {
	if len(msgs) == 0 {
		return 0
	}
	n := tokensPerReply
	for _, m := range msgs {
		n += tokensPerMessage + text(m.Content)
		if m.Name != "" {
			n += 1 + text(m.Name)
		}
		for _, tc := range m.ToolCalls {
			n += tokensPerMessage + text(tc.Name) + text(tc.Arguments)
		}
	}
	return n
}
