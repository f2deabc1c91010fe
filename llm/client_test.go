package llm_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

func TestChatReassemblesSplitToolCalls(t *testing.T) {
	t.Parallel()
	for _, noIndex := range []bool{false, true} {
		t.Run(map[bool]string{false: "with index", true: "without index"}[noIndex], func(t *testing.T) {
			ex := llmtest.Calls(
				llmtest.CallSpec{ID: "c1", Name: "read_file", Args: `{"path":"cmd/bot/main.go","from":10}`},
				llmtest.CallSpec{ID: "c2", Name: "grep", Args: `{"pattern":"func main"}`},
			).Split(3)
			ex.Reply.Content = "Let me look."
			ex.Reply.NoIndex = noIndex
			srv := llmtest.NewServer(t, llmtest.Script{ex})
			c, _ := newClient(t, srv)

			resp, err := c.Chat(t.Context(), llm.Request{Role: llm.RoleExplorer, Messages: userMsg("hi")})
			require.NoError(t, err)
			assert.Equal(t, "Let me look.", resp.Message.Content)
			assert.Equal(t, []llm.ToolCall{
				{ID: "c1", Name: "read_file", Arguments: `{"path":"cmd/bot/main.go","from":10}`},
				{ID: "c2", Name: "grep", Arguments: `{"pattern":"func main"}`},
			}, resp.Message.ToolCalls)
			assert.Equal(t, "tool_calls", resp.FinishReason)
			req := srv.Requests()[0]
			assert.True(t, req.Stream)
			assert.True(t, req.StreamUsage, "stream_options.include_usage is asked")
			assert.Equal(t, "explorer", req.Role)
			assert.Equal(t, "Bearer sk-test-key", req.Header.Get("Authorization"))
		})
	}
}

func TestChatKeepsReasoningApartAndNeverSendsItBack(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("The answer is 4.").WithReasoning("2+2 is 4, clearly.").Split(5),
		llmtest.Reply("ok").When(llmtest.Expect{Last: "thanks"}),
	})
	c, _ := newClient(t, srv)
	resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("2+2?")})
	require.NoError(t, err)
	assert.Equal(t, "The answer is 4.", resp.Message.Content)
	assert.Equal(t, "2+2 is 4, clearly.", resp.Message.Reasoning)

	msgs := append(userMsg("2+2?"), resp.Message, llm.Message{Role: llm.User, Content: "thanks"})
	_, err = c.Chat(t.Context(), llm.Request{Messages: msgs})
	require.NoError(t, err)
	body := string(srv.Requests()[1].Body)
	assert.NotContains(t, body, "clearly", "reasoning must not be sent back")
	assert.Contains(t, body, "The answer is 4.")
}

func TestChatUsageFromFinalChunkAndCost(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("hello").WithUsage(1000, 200, 400)})
	c, _ := newClient(t, srv, func(cfg *llm.Config) {
		cfg.Roles = map[llm.Role]llm.RoleConfig{llm.RoleCoder: {Model: "coder-model"}}
		cfg.Prices = map[string]llm.Price{"coder-model": {Prompt: 2, Completion: 10, Cached: 0.5}}
	})
	resp, err := c.Chat(t.Context(), llm.Request{Role: llm.RoleCoder, Messages: userMsg("hi")})
	require.NoError(t, err)
	assert.Equal(t, llm.Usage{PromptTokens: 1000, CompletionTokens: 200, CachedTokens: 400}, resp.Usage)
	assert.False(t, resp.UsageEstimated)
	assert.Equal(t, "coder-model", resp.Model)
	// 600 uncached*2 + 400 cached*0.5 + 200*10, per million.
	assert.InDelta(t, (600*2+400*0.5+200*10)/1e6, resp.Cost, 1e-12)
	assert.Equal(t, "coder-model", srv.Requests()[0].Model)
}

func TestChatEstimatesUsageWhenServerReportsNone(t *testing.T) {
	t.Parallel()
	ex := llmtest.Reply("a reply of several tokens")
	ex.Reply.NoUsage = true
	srv := llmtest.NewServer(t, llmtest.Script{ex})
	c, _ := newClient(t, srv)
	resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("a question for the model")})
	require.NoError(t, err)
	assert.True(t, resp.UsageEstimated)
	assert.Equal(t, llm.CountTokens(userMsg("a question for the model")), resp.Usage.PromptTokens)
	assert.Positive(t, resp.Usage.CompletionTokens)
}

func TestChatFallsBackWhenServerDoesNotStream(t *testing.T) {
	t.Parallel()
	plain := llmtest.Call("grep", `{"pattern":"x"}`).WithUsage(10, 2, 0)
	plain.Reply.Plain = true
	srv := llmtest.NewServer(t, llmtest.Script{plain, plain, llmtest.Reply("done")})
	c, _ := newClient(t, srv)
	resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
	assert.Equal(t, "grep", resp.Message.ToolCalls[0].Name)
	assert.Equal(t, 10, resp.Usage.PromptTokens)
	_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("again")})
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.True(t, reqs[0].Stream, "first try streams")
	assert.False(t, reqs[1].Stream, "the retry is plain")
	assert.False(t, reqs[2].Stream, "later calls remember")
}

func TestChatNoStreamConfig(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("plain").WithReasoning("hmm").WithUsage(5, 1, 0)})
	c, _ := newClient(t, srv, func(cfg *llm.Config) { cfg.NoStream = true })
	resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
	assert.Equal(t, "plain", resp.Message.Content)
	assert.Equal(t, "hmm", resp.Message.Reasoning)
	assert.False(t, srv.Requests()[0].Stream)
}

func TestChatJSONModeIsRequested(t *testing.T) {
	t.Parallel()
	yes := true
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply(`{"a":1}`).When(llmtest.Expect{JSON: &yes})})
	c, _ := newClient(t, srv)
	_, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("json please"), JSON: true, MaxTokens: 77})
	require.NoError(t, err)
	assert.Equal(t, 77, srv.Requests()[0].MaxTokens)
}

func TestChatCancelledMidStream(t *testing.T) {
	t.Parallel()
	slow := llmtest.Reply(strings.Repeat("word ", 200)).Split(5)
	slow.Reply.Delay = 20 * time.Millisecond
	srv := llmtest.NewServer(t, llmtest.Script{slow})
	ctx, cancel := context.WithCancel(t.Context())
	c, sl := newClient(t, srv, func(cfg *llm.Config) {
		cfg.HTTPClient = &http.Client{Transport: cancelOnStream{cancel}}
	})
	start := time.Now()
	_, err := c.Chat(ctx, llm.Request{Messages: userMsg("talk")})
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 2*time.Second, "the call stops with its context, not after the 4s stream")
	assert.Empty(t, sl.waits(), "no retry after cancellation")
	assert.Len(t, srv.Requests(), 1)
}

func TestChatUnreachableNamesSetting(t *testing.T) {
	t.Parallel()
	c, err := llm.NewClient(llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", Sleep: (&sleeps{}).sleep})
	require.NoError(t, err)
	_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.ErrorIs(t, err, llm.ErrUnreachable)
	assert.Contains(t, err.Error(), "llm.base_url")
}

func TestNewClientRejectsBadConfig(t *testing.T) {
	t.Parallel()
	_, err := llm.NewClient(llm.Config{BaseURL: "http://x/v1"})
	require.ErrorIs(t, err, llm.ErrConfig)
	assert.Contains(t, err.Error(), "llm.model")
}

func TestChatErrorsNameTheSetting(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status   int
		sentinel error
		setting  string
	}{
		{401, llm.ErrAuth, "llm.api_key"},
		{404, llm.ErrModelNotFound, "check llm.model and llm.base_url"},
	} {
		srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("never").After(llmtest.Status(tc.status))})
		c, sl := newClient(t, srv)
		_, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
		require.ErrorIs(t, err, tc.sentinel)
		assert.Contains(t, err.Error(), tc.setting)
		assert.NotContains(t, err.Error(), "sk-test-key", "the key never appears in errors")
		assert.Empty(t, sl.waits(), "no retry on %d", tc.status)
		// Play the remaining reply so the script completes.
		_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
		require.NoError(t, err)
	}
}

func TestChatNoRetryOnOther4xx(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("later").After(llmtest.Status(400))})
	c, sl := newClient(t, srv)
	_, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.Error(t, err)
	assert.Empty(t, sl.waits())
	assert.Len(t, srv.Requests(), 1)
	_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
}

func TestCheckMakesOneTinyCall(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("OK").When(llmtest.Expect{Role: "coder", Model: "coder-model"}),
		llmtest.Reply("x").After(llmtest.Status(404)),
	})
	c, _ := newClient(t, srv, func(cfg *llm.Config) {
		cfg.Roles = map[llm.Role]llm.RoleConfig{llm.RoleCoder: {Model: "coder-model"}}
	})
	require.NoError(t, c.Check(t.Context(), llm.RoleCoder))
	assert.Equal(t, 8, srv.Requests()[0].MaxTokens)
	err := c.Check(t.Context(), llm.RolePlanner)
	require.ErrorIs(t, err, llm.ErrModelNotFound)
	assert.Contains(t, err.Error(), `model "test-model"`)
	require.NoError(t, c.Check(t.Context(), llm.RolePlanner))
}

func TestChatStreamCutBeforeAnswerIsRetried(t *testing.T) {
	t.Parallel()
	// A stream that only says "assistant" and ends: no finish, no content.
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("real").After(llmtest.Fault{Cut: true})})
	c, sl := newClient(t, srv)
	resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
	assert.Equal(t, "real", resp.Message.Content)
	assert.Len(t, sl.waits(), 1)
}

func TestChatErrorsNeverCarryTheKey(t *testing.T) {
	t.Parallel()
	echo := llmtest.Fault{Status: 400, Message: "Incorrect API key provided: sk-test-key. You can find your key at ..."}
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("x").After(echo)})
	c, _ := newClient(t, srv)
	_, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "sk-test-key")
	assert.Contains(t, err.Error(), "Incorrect API key provided: [redacted]")
	_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
}

func TestChatTLSMismatchNamesBaseURL(t *testing.T) {
	t.Parallel()
	// An https base URL pointed at a plain-HTTP server.
	srv := llmtest.NewServer(t, nil)
	url := strings.Replace(srv.URL(), "http://", "https://", 1)
	c, err := llm.NewClient(llm.Config{BaseURL: url, Model: "m", Sleep: (&sleeps{}).sleep})
	require.NoError(t, err)
	_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.ErrorIs(t, err, llm.ErrUnreachable)
	assert.Contains(t, err.Error(), "check llm.base_url")
}
