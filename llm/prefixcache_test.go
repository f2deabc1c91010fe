package llm_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
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
	first := []llm.Message{system, issue}
	in := func(ms []llm.Message) int { return llm.CountText(strings.ReplaceAll(llm.PromptText(ms), "\x00", "")) }

	var c llm.PrefixCache
	require.Zero(t, c.Cached(llm.PromptText(first), in(first)), "nothing seen yet")

	second := append(append([]llm.Message(nil), first...),
		llm.Message{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: `{"path":"a.go"}`}}},
		llm.Message{Role: llm.ToolRole, Content: "package a\n"})
	got := c.Cached(llm.PromptText(second), in(second))
	want := in(first)
	require.Zero(t, got%llm.CacheBlockTokens, "whole blocks")
	require.GreaterOrEqual(t, got, llm.CacheMinTokens)
	require.LessOrEqual(t, got, want)
	require.Greater(t, got, want-llm.CacheBlockTokens-4, "all of the first call's prompt but the last partial block")

	rewritten := []llm.Message{{Role: llm.System, Content: "short " + system.Content}, issue}
	require.Zero(t, c.Cached(llm.PromptText(rewritten), in(rewritten)), "a change at the start shares nothing")

	small := []llm.Message{{Role: llm.System, Content: strings.Join(words[:100], " ")}}
	var fresh llm.PrefixCache
	fresh.Cached(llm.PromptText(small), in(small))
	require.Zero(t, fresh.Cached(llm.PromptText(small), in(small)), "under 1,024 tokens nothing is cached")
}

func TestCachedTokens(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]int{0: 0, 1023: 0, 1024: 1024, 1151: 1024, 1152: 1152, 5000: 4992} {
		require.Equal(t, want, llm.CachedTokens(n), n)
	}
}

// TestScriptedServerPrefixCache: llmtest.WithPrefixCache reports the
// cached part of an append-only conversation through the real client.
func TestScriptedServerPrefixCache(t *testing.T) {
	t.Parallel()
	var words []string
	for i := range 1500 {
		words = append(words, fmt.Sprintf("word%d", i))
	}
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("one").WithUsage(5000, 10, 0),
		llmtest.Reply("two").WithUsage(5000, 10, 0),
	}, llmtest.WithPrefixCache())
	c, err := llm.NewClient(srv.Config())
	require.NoError(t, err)
	msgs := []llm.Message{{Role: llm.System, Content: strings.Join(words, " ")}, {Role: llm.User, Content: "go"}}
	first, err := c.Chat(t.Context(), llm.Request{Role: llm.RoleCoder, Messages: msgs})
	require.NoError(t, err)
	require.Zero(t, first.Usage.CachedTokens)
	msgs = append(msgs, first.Message, llm.Message{Role: llm.User, Content: "again"})
	second, err := c.Chat(t.Context(), llm.Request{Role: llm.RoleCoder, Messages: msgs})
	require.NoError(t, err)
	require.GreaterOrEqual(t, second.Usage.CachedTokens, llm.CacheMinTokens)
	require.Zero(t, second.Usage.CachedTokens%llm.CacheBlockTokens)
}
