package oracle

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
)

// TestPrefixCache: an append-only conversation is served from the cache
// up to what the earlier call sent, in 128-token blocks from 1,024 on; a
// shared prefix under 1,024 tokens, or a conversation rewritten near its
// start, is not.
func TestPrefixCache(t *testing.T) {
	t.Parallel()
	var words []string
	for i := range 1500 {
		words = append(words, fmt.Sprintf("word%d", i))
	}
	system := llm.Message{Role: llm.System, Content: strings.Join(words, " ")}
	issue := llm.Message{Role: llm.User, Content: "Greet people by name."}
	first := request{Messages: []llm.Message{system, issue}}
	in := func(r request) int { n, _ := tokens(r, answer{}); return n }

	var c prefixCache
	require.Zero(t, c.cached(promptText(first), in(first)), "nothing seen yet")

	second := request{Messages: append(append([]llm.Message(nil), first.Messages...),
		llm.Message{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: `{"path":"a.go"}`}}},
		llm.Message{Role: llm.ToolRole, Content: "package a\n"})}
	got := c.cached(promptText(second), in(second))
	want := in(first)
	require.Zero(t, got%cacheBlock, "whole blocks")
	require.GreaterOrEqual(t, got, cacheMin)
	require.LessOrEqual(t, got, want)
	require.Greater(t, got, want-cacheBlock-4, "all of the first call's prompt but the last partial block")

	rewritten := request{Messages: []llm.Message{{Role: llm.System, Content: "short " + system.Content}, issue}}
	require.Zero(t, c.cached(promptText(rewritten), in(rewritten)), "a change at the start shares nothing")

	small := request{Messages: []llm.Message{{Role: llm.System, Content: strings.Join(words[:100], " ")}}}
	var fresh prefixCache
	fresh.cached(promptText(small), in(small))
	require.Zero(t, fresh.cached(promptText(small), in(small)), "under 1,024 tokens nothing is cached")
}

func TestCachedTokens(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]int{0: 0, 1023: 0, 1024: 1024, 1151: 1024, 1152: 1152, 5000: 4992} {
		require.Equal(t, want, cachedTokens(n), n)
	}
}
