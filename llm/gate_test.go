package llm_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// tokenGate admits calls while their worst case fits limit tokens and
// keeps what each call was charged.
type tokenGate struct {
	mu      sync.Mutex
	limit   int
	spent   int
	calls   []llm.Call
	charged []llm.Spent
}

func (g *tokenGate) Admit(_ context.Context, c llm.Call) (llm.Charge, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls = append(g.calls, c)
	if g.spent+c.Worst.Total() > g.limit {
		return nil, fmt.Errorf("%w: %d of %d tokens spent", llm.ErrSpendLimit, g.spent, g.limit)
	}
	return func(_ context.Context, s llm.Spent) {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.spent += s.Usage.Total()
		g.charged = append(g.charged, s)
	}, nil
}

// TestGateRefusesBeforeSending: the gate sees each call's worst case
// (local prompt count plus the completion cap) before anything is sent;
// a refused call never reaches the server, and admitted calls are charged
// what the server reported.
func TestGateRefusesBeforeSending(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("one").WithUsage(300, 50, 100),
		llmtest.Reply("two").WithUsage(300, 50, 0),
	})
	g := &tokenGate{limit: 1000}
	cfg := srv.Config()
	cfg.MaxTokens = 400
	cfg.Prices = map[string]llm.Price{"test": {Prompt: 1, Completion: 2}}
	cfg.Gate = g
	c, err := llm.NewClient(cfg)
	require.NoError(t, err)
	req := llm.Request{Role: llm.RoleCoder, Messages: []llm.Message{{Role: llm.User, Content: "hello there"}}}

	_, err = c.Chat(t.Context(), req)
	require.NoError(t, err)
	_, err = c.Chat(t.Context(), req) // 350 spent + worst (prompt + 400) fits 1000
	require.NoError(t, err)
	_, err = c.Chat(t.Context(), req) // 700 + worst does not
	require.ErrorIs(t, err, llm.ErrSpendLimit)

	require.Len(t, srv.Requests(), 2, "the refused call was sent")
	require.Len(t, g.calls, 3)
	first := g.calls[0]
	require.Equal(t, llm.RoleCoder, first.Role)
	require.Equal(t, "test", first.Model)
	require.Equal(t, 400, first.Worst.CompletionTokens)
	require.Positive(t, first.Worst.PromptTokens)
	require.True(t, first.Priced)
	require.InDelta(t, float64(first.Worst.PromptTokens+800)/1e6, first.WorstCost, 1e-12)
	require.Equal(t, []llm.Spent{
		{Usage: llm.Usage{PromptTokens: 300, CompletionTokens: 50, CachedTokens: 100}, Cost: 400.0 / 1e6},
		{Usage: llm.Usage{PromptTokens: 300, CompletionTokens: 50}, Cost: 400.0 / 1e6},
	}, g.charged)
}

// TestGateWorstCaseWithoutCap: without a completion cap the worst case
// assumes DefaultWorstCompletion; a model without a price says so; a
// failed call is charged nothing.
func TestGateWorstCaseWithoutCap(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("x").After(llmtest.Status(400))})
	g := &tokenGate{limit: 1 << 30}
	cfg := srv.Config()
	cfg.Gate = g
	c, err := llm.NewClient(cfg)
	require.NoError(t, err)
	_, err = c.Chat(t.Context(), llm.Request{Role: llm.RolePlanner, Messages: []llm.Message{{Role: llm.User, Content: "hi"}}})
	require.Error(t, err)
	require.False(t, errors.Is(err, llm.ErrSpendLimit))
	_, err = c.Chat(t.Context(), llm.Request{Role: llm.RolePlanner, Messages: []llm.Message{{Role: llm.User, Content: "hi"}}})
	require.NoError(t, err)
	require.Len(t, g.calls, 2)
	require.Equal(t, llm.DefaultWorstCompletion, g.calls[0].Worst.CompletionTokens)
	require.False(t, g.calls[0].Priced)
	require.Equal(t, llm.Spent{}, g.charged[0], "a failed call is charged nothing")
	require.Positive(t, g.charged[1].Usage.Total())
}

// TestAgentStopsGracefullyAtASpendLimit: a call the gate refuses ends the
// agent's run as its own token budget would, keeping what it gathered.
func TestAgentStopsGracefullyAtASpendLimit(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Call("look", `{}`).WithUsage(400, 50, 0)})
	cfg := srv.Config()
	cfg.MaxTokens = 400
	cfg.Gate = &tokenGate{limit: 800}
	c, err := llm.NewClient(cfg)
	require.NoError(t, err)
	look := llm.NewTool("look", "Look around.", func(context.Context, struct{}) (llm.ToolResult, error) {
		return llm.ToolResult{Content: "nothing here"}, nil
	})
	a := &llm.Agent{Role: llm.RoleExplorer, Model: c, Tools: []llm.Tool{look}}
	out, err := a.Run(t.Context(), []llm.Message{{Role: llm.User, Content: "explore"}})
	require.NoError(t, err)
	require.Equal(t, llm.StopTokenBudget, out.Reason)
	require.ErrorIs(t, out.Err, llm.ErrSpendLimit)
	require.Len(t, srv.Requests(), 1)
	require.Len(t, out.Steps, 1, "the step that was paid for is kept")
}
