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

// counts memoises CountText for long strings. Agents count the same file
// windows and conversations over and over (budgets, compression
// thresholds), and tokenising runs at about 1 MB/s while hashing runs at
// GB/s. It is package state only because CountText is a pure function: the
// cache never changes a result (a 64-bit hash collision could, with odds far
// below anything that matters for an estimate), and it is bounded.
var counts = &countMemo{seed: maphash.MakeSeed(), m: map[uint64]int{}}

const (
	memoMinLen  = 256     // shorter strings are cheaper to count than to track
	memoEntries = 1 << 14 // then the memo starts over
)

type countMemo struct {
	seed maphash.Seed
	mu   sync.Mutex
	m    map[uint64]int
}

func (c *countMemo) get(h uint64) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.m[h]
	return n, ok
}

func (c *countMemo) put(h uint64, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= memoEntries {
		clear(c.m)
	}
	c.m[h] = n
}

// CountText returns the number of o200k_base tokens in s. Other model
// families tokenise differently; treat the count as an estimate for
// budgets and compression thresholds, not for billing. Safe for concurrent
// use; repeated long strings are answered from a bounded memo.
func CountText(s string) int {
	if s == "" {
		return 0
	}
	var h uint64
	if len(s) >= memoMinLen {
		h = maphash.String(counts.seed, s)
		if n, ok := counts.get(h); ok {
			return n
		}
	}
	n, err := codec().Count(s)
	if err != nil {
		// Count fails only on invalid UTF-8 in strict mode; fall back to
		// the common 4-bytes-per-token rule.
		n = (len(s) + 3) / 4
	}
	if len(s) >= memoMinLen {
		counts.put(h, n)
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
