package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

type readParams struct {
	Path string `json:"path" desc:"repo-relative path"`
	From int    `json:"from,omitempty" desc:"first line"`
}

// readTool serves fixed file contents and counts its calls.
func readTool(files map[string]string, calls *atomic.Int32) llm.Tool {
	return llm.NewTool("read_file", "Read a file.", func(_ context.Context, p readParams) (llm.ToolResult, error) {
		calls.Add(1)
		text, ok := files[p.Path]
		if !ok {
			return llm.ErrorResult("%s does not exist", p.Path), nil
		}
		return llm.ToolResult{Content: text}, nil
	})
}

func TestAgentRunsScriptFromTestdata(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, "testdata/explore_two_tools.yaml"))
	c, _ := newClient(t, srv)
	var calls atomic.Int32
	a := &llm.Agent{Role: llm.RoleExplorer, Model: c, Tools: []llm.Tool{readTool(map[string]string{"main.go": "package main"}, &calls)}}

	out, err := a.Run(t.Context(), userMsg("Why does the bot crash?"))
	require.NoError(t, err)
	assert.Equal(t, llm.StopFinished, out.Reason)
	assert.Equal(t, "main.go dereferences a nil config.", out.Final.Content)
	assert.Equal(t, llm.Usage{PromptTokens: 1220, CompletionTokens: 72, CachedTokens: 300}, out.Usage)
	assert.EqualValues(t, 1, calls.Load(), "only the valid call reaches the tool")
	require.Len(t, out.Steps, 3)
	assert.Equal(t, 1, out.Steps[0].Errors)
	assert.Equal(t, 1, out.Steps[1].Errors)

	// One tool message per call, in order, answering the right call IDs
	// (on the wire as nine alphanumerics, as Mistral's templates demand).
	req2 := srv.Requests()[1]
	n := len(req2.Messages)
	sent := req2.Messages[n-3].ToolCalls
	require.Len(t, sent, 2)
	assert.Regexp(t, `^[A-Za-z0-9]{9}$`, sent[0].ID)
	assert.NotEqual(t, sent[0].ID, sent[1].ID)
	assert.Equal(t, llm.Message{Role: llm.ToolRole, ToolCallID: sent[0].ID, Content: "package main"}, req2.Messages[n-2])
	assert.Equal(t, sent[1].ID, req2.Messages[n-1].ToolCallID)
	assert.True(t, strings.HasPrefix(req2.Messages[n-1].Content, "error: unknown tool"))
	assert.Contains(t, req2.Messages[n-1].Content, "available tools: read_file")
	assert.Len(t, req2.Messages[n-3].ToolCalls, 2, "the assistant turn is sent back with both calls")
	// Outcome.Messages holds the whole conversation.
	assert.Len(t, out.Messages, 1+3+3)
}

func TestAgentToolArgumentMistakesAreResults(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Call("read_file", `{"from": 3}`),
		llmtest.Call("read_file", `{"path": "a.go", "lines": 3}`).When(llmtest.Expect{ToolResult: "missing required argument(s): path"}),
		llmtest.Call("read_file", `{"path": 7}`).When(llmtest.Expect{ToolResult: "unknown field"}),
		llmtest.Call("read_file", `{"path": "gone.go"}`).When(llmtest.Expect{ToolResult: "cannot unmarshal number"}),
		llmtest.Reply("gave up").When(llmtest.Expect{ToolResult: "error: gone.go does not exist"}),
	})
	c, _ := newClient(t, srv)
	var calls atomic.Int32
	a := &llm.Agent{Model: c, Tools: []llm.Tool{readTool(nil, &calls)}}
	out, err := a.Run(t.Context(), userMsg("read"))
	require.NoError(t, err)
	assert.Equal(t, llm.StopFinished, out.Reason)
	assert.EqualValues(t, 1, calls.Load())
}

func TestAgentStopsOnTerminalToolAndHooks(t *testing.T) {
	t.Parallel()
	type submit struct {
		Summary string `json:"summary"`
	}
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Call("noop", `{}`).When(llmtest.Expect{Last: "compressed"}),
		llmtest.Call("submit", `{"summary":"done"}`).When(llmtest.Expect{Last: "observer says: submit now"}),
	})
	c, _ := newClient(t, srv)
	var got string
	a := &llm.Agent{Model: c, Tools: []llm.Tool{
		llm.NewTool("noop", "nothing", func(context.Context, struct{}) (llm.ToolResult, error) { return llm.ToolResult{Content: "ok"}, nil }),
		llm.NewTool("submit", "finish", func(_ context.Context, p submit) (llm.ToolResult, error) {
			got = p.Summary
			return llm.ToolResult{Content: "submitted", Stop: true}, nil
		}),
	}, Hooks: llm.Hooks{
		BeforeCall: func(_ context.Context, s *llm.State) error {
			if s.Step == 1 {
				s.Messages = userMsg("compressed")
			}
			return nil
		},
		AfterStep: func(_ context.Context, s *llm.State) error {
			if s.Step == 1 {
				s.Messages = append(s.Messages, llm.Message{Role: llm.User, Content: "observer says: submit now"})
			}
			return nil
		},
	}}
	out, err := a.Run(t.Context(), userMsg("a long history"))
	require.NoError(t, err)
	assert.Equal(t, llm.StopFinished, out.Reason)
	assert.Equal(t, "done", got)
	assert.Len(t, out.Steps, 2)
}

func TestAgentDetectsLoops(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Call("read_file", `{"path":"a.go"}`),
		llmtest.Call("read_file", `{"path":"b.go"}`),
		llmtest.Call("read_file", `{ "path": "a.go" }`),
		llmtest.Call("read_file", `{"path":"a.go"}`),
	})
	c, _ := newClient(t, srv)
	var calls atomic.Int32
	a := &llm.Agent{Model: c, Tools: []llm.Tool{readTool(map[string]string{"a.go": "A", "b.go": "B"}, &calls)}}
	out, err := a.Run(t.Context(), userMsg("go"))
	require.NoError(t, err)
	assert.Equal(t, llm.StopLoop, out.Reason)
	assert.Len(t, out.Steps, 4)
	assert.Contains(t, srv.Requests()[3].Last().Content, "another repeat ends the run", "warned once before the stop")
	assert.NotContains(t, srv.Requests()[2].Last().Content, "note:")
}

func TestAgentLoopPolicyIsConfigurable(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Call("read_file", `{"path":"a.go"}`),
		llmtest.Call("read_file", `{"path":"a.go"}`),
	})
	c, _ := newClient(t, srv)
	var calls atomic.Int32
	a := &llm.Agent{Model: c, Loop: llm.LoopPolicy{Window: 2, Repeats: 2}, Tools: []llm.Tool{readTool(map[string]string{"a.go": "A"}, &calls)}}
	out, err := a.Run(t.Context(), userMsg("go"))
	require.NoError(t, err)
	assert.Equal(t, llm.StopLoop, out.Reason)
	assert.EqualValues(t, 2, calls.Load())
}

// endless answers every request with a fresh tool call.
func endless(n int, usage int) llmtest.Script {
	var s llmtest.Script
	for i := range n {
		s = append(s, llmtest.Call("read_file", fmt.Sprintf(`{"path":"f%d.go"}`, i)).WithUsage(usage, usage/10, 0))
	}
	return s
}

func TestAgentBudgetStops(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		budget llm.Budget
		script llmtest.Script
		want   llm.StopReason
		steps  int
	}{
		{"steps", llm.Budget{MaxSteps: 3}, endless(3, 100), llm.StopStepLimit, 3},
		{"tokens", llm.Budget{MaxTokens: 2500}, endless(3, 1000), llm.StopTokenBudget, 3},
		{"cost", llm.Budget{MaxCost: 0.002}, endless(2, 1000), llm.StopCostBudget, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, tc.script)
			c, _ := newClient(t, srv, func(cfg *llm.Config) {
				cfg.Prices = map[string]llm.Price{"test-model": {Prompt: 1, Completion: 1}}
			})
			var calls atomic.Int32
			a := &llm.Agent{Model: c, Budget: tc.budget, Tools: []llm.Tool{readTool(nil, &calls)}}
			out, err := a.Run(t.Context(), userMsg("go"))
			require.NoError(t, err, "a budget stop is not an error")
			assert.Equal(t, tc.want, out.Reason)
			assert.Len(t, out.Steps, tc.steps)
			assert.InDelta(t, float64(out.Usage.Total())/1e6, out.Cost, 1e-12, "priced at 1 per million")
			assert.EqualValues(t, tc.steps, calls.Load(), "what was gathered is kept")
			assert.Equal(t, llm.ToolRole, out.Messages[len(out.Messages)-1].Role)
		})
	}
}

func TestAgentWallTimeStopsSlowModel(t *testing.T) {
	t.Parallel()
	// The second reply would take 3s; the wall budget is 1s, leaving the
	// first (fast, loopback) step ample time even on a loaded machine.
	slow := llmtest.Reply(strings.Repeat("x", 100)).Split(1)
	slow.Reply.Delay = 30 * time.Millisecond
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Call("read_file", `{"path":"a"}`), slow})
	c, _ := newClient(t, srv)
	var calls atomic.Int32
	a := &llm.Agent{Model: c, Budget: llm.Budget{MaxWall: time.Second}, Tools: []llm.Tool{readTool(nil, &calls)}}
	start := time.Now()
	out, err := a.Run(t.Context(), userMsg("go"))
	require.NoError(t, err)
	assert.Equal(t, llm.StopWallTime, out.Reason)
	assert.Less(t, time.Since(start), 2500*time.Millisecond)
	assert.Len(t, out.Steps, 1)
}

func TestAgentCancelledAndModelError(t *testing.T) {
	t.Parallel()
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		slow := llmtest.Reply(strings.Repeat("x", 100)).Split(1)
		slow.Reply.Delay = 20 * time.Millisecond
		srv := llmtest.NewServer(t, llmtest.Script{slow})
		ctx, cancel := context.WithCancel(t.Context())
		c, _ := newClient(t, srv, func(cfg *llm.Config) {
			cfg.HTTPClient = &http.Client{Transport: cancelOnStream{cancel}}
		})
		out, err := (&llm.Agent{Model: c}).Run(ctx, userMsg("go"))
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, llm.StopCancelled, out.Reason)
	})
	t.Run("model error", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("x").After(llmtest.Status(401))})
		c, _ := newClient(t, srv)
		out, err := (&llm.Agent{Model: c}).Run(t.Context(), userMsg("go"))
		require.ErrorIs(t, err, llm.ErrAuth)
		assert.Equal(t, llm.StopModelError, out.Reason)
		require.ErrorIs(t, out.Err, llm.ErrAuth)
		_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("finish the script")})
		require.NoError(t, err)
	})
}

func TestAgentToolFailureEndsRun(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Call("boom", `{}`)})
	c, _ := newClient(t, srv)
	disk := errors.New("disk full")
	a := &llm.Agent{Model: c, Tools: []llm.Tool{llm.NewTool("boom", "fails", func(context.Context, struct{}) (llm.ToolResult, error) {
		return llm.ToolResult{}, disk
	})}}
	out, err := a.Run(t.Context(), userMsg("go"))
	require.ErrorIs(t, err, disk)
	assert.Equal(t, llm.StopError, out.Reason)
}

func TestAgentWallTimeBoundsTools(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Call("wait", `{}`)})
	c, _ := newClient(t, srv)
	a := &llm.Agent{Model: c, Budget: llm.Budget{MaxWall: 500 * time.Millisecond}, Tools: []llm.Tool{
		llm.NewTool("wait", "Blocks until its context ends.", func(ctx context.Context, _ struct{}) (llm.ToolResult, error) {
			<-ctx.Done()
			return llm.ToolResult{}, fmt.Errorf("running tests: %w", ctx.Err())
		}),
	}}
	out, err := a.Run(t.Context(), userMsg("go"))
	require.NoError(t, err, "a wall-time stop is a budget stop, even inside a tool")
	assert.Equal(t, llm.StopWallTime, out.Reason)
}

func TestAgentHookStopAndStepRecords(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 400) // 800 bytes: the record keeps a valid UTF-8 prefix
	ex := llmtest.Call("read_file", `{"path":"a.go"}`).WithUsage(70, 7, 0)
	ex.Reply.Content = long
	srv := llmtest.NewServer(t, llmtest.Script{ex})
	c, _ := newClient(t, srv)
	var calls atomic.Int32
	var seen llm.Usage
	a := &llm.Agent{Model: c, Tools: []llm.Tool{readTool(map[string]string{"a.go": "A"}, &calls)}, Hooks: llm.Hooks{
		AfterStep: func(_ context.Context, s *llm.State) error {
			seen = s.Usage
			s.Stop = true // the observer decided enough was gathered
			return nil
		},
	}}
	out, err := a.Run(t.Context(), userMsg("go"))
	require.NoError(t, err)
	assert.Equal(t, llm.StopFinished, out.Reason)
	assert.Equal(t, llm.Usage{PromptTokens: 70, CompletionTokens: 7}, seen)
	require.Len(t, out.Steps, 1)
	rec := out.Steps[0]
	assert.Equal(t, 1, rec.Step)
	assert.Equal(t, "read_file", rec.Calls[0].Name)
	assert.True(t, utf8.ValidString(rec.Content))
	assert.Less(t, len(rec.Content), 510)
	assert.Equal(t, long, out.Final.Content, "the message itself is whole")
}

func TestAgentContextWindowOverflowIsAContextWindowStop(t *testing.T) {
	t.Parallel()
	for name, tooLong := range map[string]llmtest.Fault{
		"openai": {Status: 400, Message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."},
		// https://github.com/ggml-org/llama.cpp/pull/15780: sent with 400 or 500.
		"llama.cpp 400": {Status: 400, Code: "exceed_context_size_error", Message: "the request exceeds the available context size, try increasing it"},
		"llama.cpp 500": {Status: 500, Code: "exceed_context_size_error", Message: "the request exceeds the available context size. try increasing the context size or enable context shift"},
		// https://github.com/google-gemini/gemini-cli/issues/4118
		"gemini": {Status: 400, Message: "The input token count (132478) exceeds the maximum number of tokens allowed (131072)."},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Script{
				llmtest.Call("read_file", `{"path":"big.go"}`),
				llmtest.Reply("never").After(tooLong),
			})
			c, _ := newClient(t, srv)
			var calls atomic.Int32
			a := &llm.Agent{Model: c, Tools: []llm.Tool{readTool(map[string]string{"big.go": "huge"}, &calls)}}
			out, err := a.Run(t.Context(), userMsg("go"))
			require.NoError(t, err, "graceful, like any budget stop")
			assert.Equal(t, llm.StopContextWindow, out.Reason)
			require.ErrorIs(t, out.Err, llm.ErrContextLength)
			assert.Contains(t, out.Detail, tooLong.Message)
			assert.EqualValues(t, 1, calls.Load(), "what was gathered is kept")
			assert.Len(t, srv.Requests(), 2, "not retried: the same prompt fails the same way")
			_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("finish the script")})
			require.NoError(t, err)
		})
	}
}
