package llm_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

func TestChatRetriesHonouringRetryAfter(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("finally").After(llmtest.RateLimit("2"), llmtest.Status(503), llmtest.Status(500)),
	})
	c, sl := newClient(t, srv, func(cfg *llm.Config) {
		cfg.Retry = llm.RetryConfig{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	})
	resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
	assert.Equal(t, "finally", resp.Message.Content)
	w := sl.waits()
	require.Len(t, w, 3)
	assert.Equal(t, 2*time.Second, w[0], "Retry-After is honoured")
	// Exponential with equal jitter: attempt n waits in [base*2^n/2, base*2^n].
	assert.GreaterOrEqual(t, w[1], 100*time.Millisecond)
	assert.LessOrEqual(t, w[1], 200*time.Millisecond)
	assert.GreaterOrEqual(t, w[2], 200*time.Millisecond)
	assert.LessOrEqual(t, w[2], 400*time.Millisecond)
	assert.Len(t, srv.Requests(), 4)
}

func TestChatRetryAfterHTTPDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("ok").After(llmtest.RateLimit(now.Add(7 * time.Second).Format(http.TimeFormat))),
	})
	c, sl := newClient(t, srv, func(cfg *llm.Config) { cfg.Now = func() time.Time { return now } })
	_, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{7 * time.Second}, sl.waits())
}

func TestChatGivesUpWhenRetryAfterTooLong(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("ok").After(llmtest.RateLimit("3600"))})
	c, sl := newClient(t, srv)
	_, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.ErrorIs(t, err, llm.ErrRateLimited)
	assert.Contains(t, err.Error(), "llm.retry.max_retry_after")
	assert.Empty(t, sl.waits())
	_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
}

func TestChatStopsAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("ok").After(llmtest.Status(500), llmtest.Status(502), llmtest.Status(500)),
	})
	c, sl := newClient(t, srv, func(cfg *llm.Config) { cfg.Retry.MaxAttempts = 2 })
	_, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "502")
	assert.Len(t, sl.waits(), 1)
	// Two more requests finish the script: one fault, then the reply.
	_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
}

func TestChatRetriesBrokenStreams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault llmtest.Fault
	}{
		{"dropped connection", llmtest.Fault{Drop: true}},
		{"malformed chunk", llmtest.Fault{Malformed: true}},
		{"slow server", llmtest.Fault{Hang: 5 * time.Second}},
		{"overloaded event mid-stream", llmtest.Fault{StreamError: "overloaded_error"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("Hello").After(tc.fault)})
			// The timeout must exceed a loopback round trip on a loaded
			// machine and stay far below the hang.
			c, sl := newClient(t, srv, func(cfg *llm.Config) { cfg.Timeout = time.Second })
			resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
			require.NoError(t, err)
			assert.Equal(t, "Hello", resp.Message.Content, "the broken attempt leaves nothing behind")
			assert.Len(t, sl.waits(), 1)
		})
	}
}

func TestChatMalformedPlainReplyIsRetried(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("fine").After(llmtest.Fault{Malformed: true})})
	c, sl := newClient(t, srv, func(cfg *llm.Config) { cfg.NoStream = true })
	resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
	assert.Equal(t, "fine", resp.Message.Content)
	assert.Len(t, sl.waits(), 1)
}

func TestRetriesAreLoggedWithoutTheKey(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	fault := llmtest.Fault{Status: 503, RetryAfter: "1", Message: "overloaded for key sk-test-key"}
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("ok").After(fault)})
	c, _ := newClient(t, srv, func(cfg *llm.Config) {
		cfg.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	_, err := c.Chat(t.Context(), llm.Request{Role: llm.RolePlanner, Messages: userMsg("secret prompt text")})
	require.NoError(t, err)
	logs := buf.String()
	assert.Contains(t, logs, "retrying")
	assert.Contains(t, logs, "wait=1s")
	assert.Contains(t, logs, "role=planner")
	assert.Contains(t, logs, "model call")
	assert.NotContains(t, logs, "sk-test-key")
	assert.NotContains(t, logs, "secret prompt text")
}

func TestChatPermanentStreamErrorIsNotRetried(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("ok").After(llmtest.Fault{StreamError: "invalid_request_error"})})
	c, sl := newClient(t, srv)
	_, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "llmtest: stream error")
	assert.Empty(t, sl.waits())
	_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
}

func TestRealBackoffSleepsAndHonoursCancellation(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("ok").After(llmtest.Status(500)),
		llmtest.Reply("later").After(llmtest.RateLimit("60")),
	})
	cfg := srv.Config()
	cfg.Sleep = nil // the real timer
	cfg.Retry = llm.RetryConfig{BaseDelay: 20 * time.Millisecond}
	c, err := llm.NewClient(cfg)
	require.NoError(t, err)
	start := time.Now()
	_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), 10*time.Millisecond, "half the base delay at least")

	// Waiting out a 60s Retry-After ends when the caller cancels.
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err = c.Chat(ctx, llm.Request{Messages: userMsg("hi")})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second)
	resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("hi")})
	require.NoError(t, err)
	assert.Equal(t, "later", resp.Message.Content)
}

// OpenAI's x-ratelimit-reset-* headers are honoured when a 429 has no
// Retry-After (the longer of the two), and a wait that long is said with
// what it waits for.
func TestRateLimitResetHeadersAreHonouredAndSaid(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	fault := llmtest.Fault{Status: 429, ResetRequests: "1s", ResetTokens: "6m0s", Message: "Rate limit reached for tokens per min"}
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("ok").After(fault)})
	c, sl := newClient(t, srv, func(cfg *llm.Config) {
		cfg.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
		cfg.Retry = llm.RetryConfig{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second, MaxRetryAfter: 10 * time.Minute}
	})
	_, err := c.Chat(t.Context(), llm.Request{Role: llm.RoleCoder, Messages: userMsg("hi")})
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{6 * time.Minute}, sl.waits(), "the later reset")
	assert.Contains(t, buf.String(), "waiting 6m0s for the rate limit's reset (x-ratelimit-reset-*)")
}

// A chat template's refusal (a 500 naming the template) is the same for
// every attempt: not retried, and named with the setting that avoids it.
func TestTemplateErrorIsNotRetried(t *testing.T) {
	t.Parallel()
	fault := llmtest.Fault{Status: 500, Message: "Error rendering template: Tool call IDs should be alphanumeric strings with length 9!"}
	srv := llmtest.NewServer(t, llmtest.Script{{Faults: []llmtest.Fault{fault}, Forever: true}})
	c, sl := newClient(t, srv)
	_, err := c.Chat(t.Context(), llm.Request{Role: llm.RoleExplorer, Messages: userMsg("hi")})
	require.ErrorIs(t, err, llm.ErrTemplate)
	require.ErrorIs(t, err, llm.ErrModelFailed)
	assert.Contains(t, err.Error(), "--jinja")
	assert.Empty(t, sl.waits())
	assert.Len(t, srv.Requests(), 1)
}
