package llm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// The endpoint kinds of the issue differ in base URL shape and in which
// streaming features they support; each shape is played by llmtest.
func TestEndpointShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		prefix string // API root path on the server
		suffix string // what the operator types after the host
		model  string
	}{
		{"openai style /v1", "/v1", "/v1", "gpt-4o-mini"},
		{"trailing slash", "/v1", "/v1/", "deepseek-chat"},
		{"gemini openai-compatible", "/v1beta/openai", "/v1beta/openai/", "gemini-2.0-flash"},
		{"qwen compatible-mode", "/compatible-mode/v1", "/compatible-mode/v1", "qwen-plus"},
		{"reasoning model uses max_completion_tokens", "/v1", "/v1", "o3-mini"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("hi").When(llmtest.Expect{Model: tc.model})}, llmtest.WithPrefix(tc.prefix))
			base := srv.URL()[:len(srv.URL())-len(tc.prefix)] + tc.suffix
			c, err := llm.NewClient(llm.Config{BaseURL: base, Model: tc.model, MaxTokens: 99, Temperature: 0.3})
			require.NoError(t, err)
			resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hello")})
			require.NoError(t, err)
			assert.Equal(t, "hi", resp.Message.Content)
			req := srv.Requests()[0]
			assert.Equal(t, tc.prefix+"/chat/completions", req.Path)
			assert.Equal(t, 99, req.MaxTokens)
			if tc.model == "o3-mini" {
				assert.Contains(t, string(req.Body), `"max_completion_tokens":99`)
				assert.Zero(t, req.Temperature)
			} else {
				assert.Contains(t, string(req.Body), `"max_tokens":99`)
				assert.InDelta(t, 0.3, req.Temperature, 1e-6)
			}
		})
	}
}

// Some servers (older vLLM, some proxies) reject stream_options; the client
// drops it, remembers, and estimates usage when none comes.
func TestServerRejectingStreamOptions(t *testing.T) {
	t.Parallel()
	reject := llmtest.Fault{Status: 400, Message: "Unrecognized request argument supplied: stream_options"}
	ex := llmtest.Reply("answer").After(reject)
	ex.Reply.NoUsage = true
	srv := llmtest.NewServer(t, llmtest.Script{ex, llmtest.Reply("again")})
	c, sl := newClient(t, srv)
	resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
	assert.Equal(t, "answer", resp.Message.Content)
	assert.True(t, resp.UsageEstimated)
	_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.True(t, reqs[0].StreamUsage)
	assert.False(t, reqs[1].StreamUsage)
	assert.False(t, reqs[2].StreamUsage, "remembered")
	assert.True(t, reqs[2].Stream, "still streams")
	assert.Empty(t, sl.waits(), "not a retry: a different request")
}

// Servers that stream every tool call whole, without index, several in one
// chunk (seen with Gemini's compatibility layer).
func TestToolCallsWithoutIndexWholeInOneChunk(t *testing.T) {
	t.Parallel()
	ex := llmtest.Calls(
		llmtest.CallSpec{ID: "x1", Name: "a", Args: map[string]any{"n": 1}},
		llmtest.CallSpec{ID: "x2", Name: "b", Args: map[string]any{"n": 2}},
		llmtest.CallSpec{Name: "c"},
	).NoIndex()
	ex.Reply.WholeCalls = true
	srv := llmtest.NewServer(t, llmtest.Script{ex})
	c, _ := newClient(t, srv)
	resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
	assert.Equal(t, []llm.ToolCall{
		{ID: "x1", Name: "a", Arguments: `{"n":1}`},
		{ID: "x2", Name: "b", Arguments: `{"n":2}`},
		{ID: "call_3", Name: "c", Arguments: `{}`},
	}, resp.Message.ToolCalls)
}

// DeepSeek: reasoning_content streamed apart, cache hits reported as
// prompt_cache_hit_tokens.
func TestDeepSeekStyleReply(t *testing.T) {
	t.Parallel()
	ex := llmtest.Reply("Use a mutex.").WithReasoning("Two goroutines write the map.").Split(6).WithUsage(900, 50, 640)
	ex.Reply.Usage.DeepSeekCache = true
	srv := llmtest.NewServer(t, llmtest.Script{ex})
	cfg := srv.Config()
	cfg.Model = "deepseek-reasoner"
	cfg.Prices = map[string]llm.Price{"deepseek-reasoner": {Prompt: 0.55, Cached: 0.14, Completion: 2.19}}
	c, err := llm.NewClient(cfg)
	require.NoError(t, err)
	resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("race?")})
	require.NoError(t, err)
	assert.Equal(t, "Use a mutex.", resp.Message.Content)
	assert.Equal(t, "Two goroutines write the map.", resp.Message.Reasoning)
	assert.Equal(t, llm.Usage{PromptTokens: 900, CompletionTokens: 50, CachedTokens: 640}, resp.Usage)
	assert.InDelta(t, (260*0.55+640*0.14+50*2.19)/1e6, resp.Cost, 1e-12)
}

// Ollama / LM Studio style: local base URL without key, no usage in the
// stream even when asked.
func TestLocalServerWithoutKeyOrStreamUsage(t *testing.T) {
	t.Parallel()
	ex := llmtest.Call("list_dir", `{"path":"."}`).Split(2)
	ex.Reply.NoUsage = true
	srv := llmtest.NewServer(t, llmtest.Script{ex})
	cfg := srv.Config()
	cfg.APIKey = ""
	c, err := llm.NewClient(cfg)
	require.NoError(t, err)
	resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("look around")})
	require.NoError(t, err)
	assert.Equal(t, `{"path":"."}`, resp.Message.ToolCalls[0].Arguments)
	assert.True(t, resp.UsageEstimated)
	assert.Empty(t, srv.Requests()[0].Header.Get("Authorization"))
}

// The hardest shape: no index and no id, split arguments (one call after
// another) or whole calls together in one delta.
func TestToolCallsWithoutIndexOrID(t *testing.T) {
	t.Parallel()
	for _, whole := range []bool{false, true} {
		t.Run(map[bool]string{false: "split", true: "whole"}[whole], func(t *testing.T) {
			t.Parallel()
			ex := llmtest.Calls(
				llmtest.CallSpec{Name: "read_file", Args: `{"path":"a.go"}`},
				llmtest.CallSpec{Name: "read_file", Args: `{"path":"b.go"}`},
			).NoIndex().Split(4)
			ex.Reply.NoIDs = true
			ex.Reply.WholeCalls = whole
			srv := llmtest.NewServer(t, llmtest.Script{ex})
			c, _ := newClient(t, srv)
			resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
			require.NoError(t, err)
			assert.Equal(t, []llm.ToolCall{
				{ID: "call00000", Name: "read_file", Arguments: `{"path":"a.go"}`},
				{ID: "call00001", Name: "read_file", Arguments: `{"path":"b.go"}`},
			}, resp.Message.ToolCalls)
		})
	}
}

// Servers that repeat the tool name in every delta, without index or id.
func TestToolCallDeltasRepeatingTheName(t *testing.T) {
	t.Parallel()
	ex := llmtest.Calls(
		llmtest.CallSpec{Name: "grep", Args: `{"pattern":"func main"}`},
		llmtest.CallSpec{Name: "grep", Args: `{"pattern":"init"}`},
	).NoIndex().Split(5)
	ex.Reply.NoIDs = true
	ex.Reply.RepeatName = true
	srv := llmtest.NewServer(t, llmtest.Script{ex})
	c, _ := newClient(t, srv)
	resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
	assert.Equal(t, []llm.ToolCall{
		{ID: "call00000", Name: "grep", Arguments: `{"pattern":"func main"}`},
		{ID: "call00001", Name: "grep", Arguments: `{"pattern":"init"}`},
	}, resp.Message.ToolCalls)
}

// OpenRouter and Ollama name the field "reasoning"; models served without a
// reasoning parser put <think> blocks in the content.
func TestReasoningVariants(t *testing.T) {
	t.Parallel()
	named := llmtest.Reply("42").WithReasoning("six times seven").Split(4)
	named.Reply.ReasoningField = "reasoning"
	think := llmtest.Reply("<think>\nsix times seven\n</think>\n\n42").Split(3)
	plainThink := llmtest.Reply("<think>six times seven</think>42")
	plainThink.Reply.Plain = true
	unclosed := llmtest.Reply("<think>six times")
	// A plain body to a streaming request makes the client ask again
	// without streaming: two requests, so the plain exchange is played twice.
	srv := llmtest.NewServer(t, llmtest.Script{named, think, plainThink, plainThink, unclosed})
	c, _ := newClient(t, srv)
	for i, want := range []llm.Message{
		{Role: llm.Assistant, Content: "42", Reasoning: "six times seven"},
		{Role: llm.Assistant, Content: "42", Reasoning: "six times seven"},
		{Role: llm.Assistant, Content: "42", Reasoning: "six times seven"},
		{Role: llm.Assistant, Reasoning: "six times"}, // cut while thinking: never an answer
	} {
		resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("?")})
		require.NoError(t, err)
		assert.Equal(t, want, resp.Message, "reply %d", i+1)
	}
}

// TGI and some llama-server builds send a call's arguments as a JSON object,
// not a string holding one: read, streamed or not.
func TestArgumentsSentAsAnObject(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "stream", false: "plain"}[stream], func(t *testing.T) {
			t.Parallel()
			ex := llmtest.Calls(llmtest.CallSpec{ID: "abcdefghi", Name: "read_file", Args: map[string]any{"path": "a.go", "limit": 5}})
			ex.Reply.ObjectArgs = true
			srv := llmtest.NewServer(t, llmtest.Script{ex})
			c, _ := newClient(t, srv, func(cfg *llm.Config) { cfg.NoStream = !stream })
			resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
			require.NoError(t, err)
			require.Len(t, resp.Message.ToolCalls, 1)
			assert.Equal(t, "read_file", resp.Message.ToolCalls[0].Name)
			assert.JSONEq(t, `{"path":"a.go","limit":5}`, resp.Message.ToolCalls[0].Arguments)
		})
	}
}
