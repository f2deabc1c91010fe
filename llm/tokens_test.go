package llm_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/issuesmith/issuesmith/llm"
)

func TestCountText(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 0, llm.CountText(""))
	assert.Equal(t, 2, llm.CountText("hello world"))
	// Counts grow with the text and stay near 4 bytes per token for prose.
	long := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 100)
	n := llm.CountText(long)
	assert.InDelta(t, len(long)/4, n, float64(len(long))/8)
	assert.Positive(t, llm.CountText("日本語のテキスト"))
}

func TestCountTokensIncludesFraming(t *testing.T) {
	t.Parallel()
	msgs := []llm.Message{
		{Role: llm.System, Content: "hello world"},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: `{"path":"a.go"}`}}, Reasoning: "long hidden thoughts"},
	}
	want := 3 + (3 + 2) + (3 + 3 + llm.CountText("read_file") + llm.CountText(`{"path":"a.go"}`))
	assert.Equal(t, want, llm.CountTokens(msgs))
	assert.Equal(t, 0, llm.CountTokens(nil))
}
