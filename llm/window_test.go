package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// The window is read where each server states it, in its documented shape.
func TestContextWindowReadFromTheServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opt  []llmtest.Option
		want string
	}{
		{"ollama num_ctx in the Modelfile", []llmtest.Option{llmtest.WithOllama(llmtest.Ollama{Ctx: 8192, Stated: true})}, "8192 tokens (Ollama num_ctx)"},
		{"ollama default, model loaded", []llmtest.Option{llmtest.WithOllama(llmtest.Ollama{Ctx: 4096, Loaded: true})}, "4096 tokens (Ollama context_length of the loaded model)"},
		{"ollama default, not loaded", []llmtest.Option{llmtest.WithOllama(llmtest.Ollama{Ctx: 4096, Trained: 40960})}, "not stated (Ollama's default; the model was trained for 40960 tokens)"},
		{"llama.cpp", []llmtest.Option{llmtest.WithLlamaCpp(16384)}, "16384 tokens (llama.cpp n_ctx)"},
		{"vllm", []llmtest.Option{llmtest.WithModels("test-model"), llmtest.WithVLLM(32768)}, "32768 tokens (vLLM max_model_len)"},
		{"LM Studio, model loaded", []llmtest.Option{llmtest.WithLMStudio(llmtest.LMStudio{Max: 32768, Loaded: 4096})},
			"4096 tokens (LM Studio loaded_context_length)"},
		{"LM Studio, not loaded", []llmtest.Option{llmtest.WithLMStudio(llmtest.LMStudio{Max: 32768})},
			"not stated (LM Studio's default; the model was trained for 32768 tokens)"},
		{"hosted API", nil, "not stated by the server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, nil, tc.opt...)
			c, _ := newClient(t, srv)
			assert.Equal(t, tc.want, c.ContextWindow(t.Context(), llm.RoleExplorer).String())
		})
	}
}

// A prompt that clearly exceeds the window its server stated is not sent:
// the error names the window and the setting that raises it.
func TestPromptOverTheStatedWindowIsNotSent(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, nil, llmtest.WithOllama(llmtest.Ollama{Ctx: 1024, Stated: true}))
	c, _ := newClient(t, srv)
	_, err := c.Chat(t.Context(), llm.Request{Messages: userMsg(strings.Repeat("the quick brown fox jumps over the lazy dog ", 300))})
	require.ErrorIs(t, err, llm.ErrContextLength)
	assert.Contains(t, err.Error(), "1024 tokens (Ollama num_ctx)")
	assert.Contains(t, err.Error(), "OLLAMA_CONTEXT_LENGTH")
	assert.Empty(t, srv.Requests(), "nothing was sent")
}

type page struct {
	N int `json:"n"`
}

// Ollama at a small num_ctx drops the oldest messages, the issue among
// them, and answers what is left: the prompt count grows by far less than
// the history did (here it still grows: the dropped issue is about the size
// of the page added, and the count stays under the window). The run stops on the first such reply, never using it, and
// its failure names the cut and num_ctx.
func TestOllamaDroppingMessagesStopsTheRun(t *testing.T) {
	t.Parallel()
	page1 := llmtest.Call("read", `{"n":1}`)
	script := llmtest.Script{page1, llmtest.Call("read", `{"n":2}`), llmtest.Call("read", `{"n":3}`)}
	srv := llmtest.NewServer(t, script, llmtest.WithOllama(llmtest.Ollama{Ctx: 1200, Truncate: true}))
	c, _ := newClient(t, srv)
	read := llm.NewTool("read", "Read a page.", func(_ context.Context, p page) (llm.ToolResult, error) {
		return llm.ToolResult{Content: strings.Repeat("lorem ipsum dolor sit amet ", 90)}, nil
	})
	issue := "# The issue\n" + strings.Repeat("The greeting must say goodbye after hello. ", 50)
	out, err := (&llm.Agent{Role: llm.RoleExplorer, Model: c, Tools: []llm.Tool{read}}).Run(t.Context(),
		[]llm.Message{{Role: llm.System, Content: "You read pages."}, {Role: llm.User, Content: issue}})
	require.NoError(t, err)
	assert.Equal(t, llm.StopContextWindow, out.Reason)
	require.ErrorIs(t, out.Err, llm.ErrTruncated)
	assert.Contains(t, out.Err.Error(), "were added to the conversation since")
	assert.Len(t, out.Steps, 2, "the third reply, to a prompt without the issue, was not used")
	reqs := srv.Requests()
	require.Len(t, reqs, 3)

	f := llm.StopFailure(llm.RoleExplorer, out.Reason, "", out.Detail, out.Err)
	require.NotNil(t, f)
	require.ErrorIs(t, f, llm.ErrModelFailed)
	require.ErrorIs(t, f, llm.ErrTruncated)
	for _, want := range []string{"cut to fit a smaller context window", "num_ctx", "OLLAMA_CONTEXT_LENGTH", "PARAMETER num_ctx"} {
		assert.Contains(t, f.Error(), want)
	}
	var mf *llm.ModelFailure
	assert.True(t, errors.As(f, &mf))
}

// A server that states its window and reports a prompt under it while far
// more was sent cut it; so does one reporting under half of it.
func TestPromptReportedUnderTheWindowIsACut(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("made up").WithUsage(3990, 5, 0)}, llmtest.WithLlamaCpp(4096))
	c, _ := newClient(t, srv)
	_, err := c.Chat(t.Context(), llm.Request{Messages: userMsg(strings.Repeat("the quick brown fox jumps over the lazy dog ", 500))})
	require.ErrorIs(t, err, llm.ErrTruncated)
	assert.Contains(t, err.Error(), "read 3990 prompt tokens of about 4")
	assert.Contains(t, err.Error(), "--ctx-size")
}

// LM Studio at its default context length drops the oldest messages by its
// rolling-window overflow policy, without an error: read from its REST API,
// the window lets the client catch the cut, whose failure names LM Studio's
// setting.
func TestLMStudioTrimmingIsCaught(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("made up")},
		llmtest.WithLMStudio(llmtest.LMStudio{Max: 32768, Loaded: 1024, Truncate: true}))
	c, _ := newClient(t, srv)
	// About 1190 tokens: over the 1024 loaded, under the 25% past it the
	// client refuses to send.
	issue := "# The issue\n" + strings.Repeat("The greeting must say goodbye after hello. ", 70)
	page := strings.Repeat("lorem ipsum dolor sit amet ", 120)
	msgs := []llm.Message{{Role: llm.System, Content: "You read pages."}, {Role: llm.User, Content: issue},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read", Arguments: "{}"}}},
		{Role: llm.ToolRole, ToolCallID: "c1", Content: page}}
	_, err := c.Chat(t.Context(), llm.Request{Role: llm.RoleExplorer, Messages: msgs})
	require.ErrorIs(t, err, llm.ErrTruncated)
	assert.Contains(t, err.Error(), "LM Studio")
	assert.Contains(t, err.Error(), "--context-length")
	assert.Equal(t, "1024 tokens (LM Studio loaded_context_length)", c.ContextWindow(t.Context(), llm.RoleExplorer).String())
}
