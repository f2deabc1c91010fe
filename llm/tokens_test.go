package llm_test

import (
	"strings"
	"testing"
	"unicode/utf8"

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

func TestCountTextMemoIsExact(t *testing.T) {
	t.Parallel()
	a := strings.Repeat("func main() { fmt.Println(\"hello\") }\n", 40)
	b := a[:len(a)-1] + "?"
	first := llm.CountText(a)
	assert.Equal(t, first, llm.CountText(a), "a repeated count gives the same answer")
	assert.Equal(t, llm.CountText(a[:len(a)-1])+1, llm.CountText(b), "a different string is counted afresh")
	c := llm.NewTokenCounter()
	assert.Equal(t, first, c.Text(a), "the counter agrees with CountText")
	assert.Equal(t, first, c.Text(a), "a repeated count gives the same answer")
	assert.Equal(t, llm.CountText(b), c.Text(b), "a different string is counted afresh")
	msgs := []llm.Message{{Role: llm.User, Content: a}, {Role: llm.Assistant, Content: b}}
	assert.Equal(t, llm.CountTokens(msgs), c.Messages(msgs))
}

func TestTruncateText(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 50) + "日本語のテキスト"
	for _, n := range []int{1, 7, 100, 499} {
		got := llm.TruncateText(s, n)
		assert.True(t, strings.HasPrefix(s, got))
		assert.True(t, utf8.ValidString(got))
		assert.LessOrEqual(t, llm.CountText(got), n)
		assert.GreaterOrEqual(t, llm.CountText(got), n-2, "as long as fits")
	}
	assert.Equal(t, s, llm.TruncateText(s, 10_000))
	assert.Empty(t, llm.TruncateText(s, 0))
	jp := "日本語のテキストです。" + strings.Repeat("漢字", 20)
	for n := 1; n < 12; n++ {
		assert.True(t, utf8.ValidString(llm.TruncateText(jp, n)), "n=%d", n)
	}
}
