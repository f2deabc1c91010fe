package budget_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/budget"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/store/storetest"
)

// TestConcurrentCallsNeverPassALimit: calls of many stages at once see
// each other's reservations, so what was admitted never holds more than
// the limit, whatever the interleaving.
func TestConcurrentCallsNeverPassALimit(t *testing.T) {
	t.Parallel()
	for _, open := range []struct {
		name string
		fn   func(t *testing.T) *budget.Gate
	}{
		{"sqlite", func(t *testing.T) *budget.Gate { return &budget.Gate{Store: storetest.SQLite(t)} }},
		{"postgres", func(t *testing.T) *budget.Gate { return &budget.Gate{Store: storetest.StartPostgres(t).Open(t)} }},
	} {
		t.Run(open.name, func(t *testing.T) {
			t.Parallel()
			g := open.fn(t)
			const limit, worst = 10_000, 1_000
			var mu sync.Mutex
			admitted := 0
			var wg sync.WaitGroup
			for i := range 30 {
				wg.Go(func() {
					m := budget.NewMeter(scope(int64(i+1), config.SpendLimits{InstallationDay: config.Limit{Tokens: limit}}))
					charge, err := g.Admit(budget.WithMeter(context.Background(), m),
						llm.Call{Role: llm.RoleCoder, Model: "m", Worst: llm.Usage{PromptTokens: worst / 2, CompletionTokens: worst / 2}})
					if err != nil {
						require.ErrorIs(t, err, llm.ErrSpendLimit)
						return
					}
					mu.Lock()
					admitted++
					mu.Unlock()
					_ = charge // held: the reservation stays at its worst case
				})
			}
			wg.Wait()
			require.LessOrEqual(t, admitted*worst, limit, "admitted past the limit")
			require.Positive(t, admitted)
		})
	}
}

// TestNotesWithoutPriceOrUsage: a model without a price is charged in
// tokens and its stage says once that cost limits cannot hold for it; an
// endpoint that reports no usage is charged the local count, and the
// stage says so.
func TestNotesWithoutPriceOrUsage(t *testing.T) {
	t.Parallel()
	quiet := func(text string) llmtest.Exchange {
		e := llmtest.Reply(text)
		e.Reply.NoUsage = true
		return e
	}
	srv := llmtest.NewServer(t, llmtest.Script{quiet("a"), quiet("b")})
	s := storetest.SQLite(t)
	g := &budget.Gate{Store: s}
	cfg := srv.Config()
	cfg.MaxTokens = 100
	cfg.Gate = g
	c, err := llm.NewClient(cfg)
	require.NoError(t, err)
	m := budget.NewMeter(scope(1, config.SpendLimits{Run: config.Limit{Tokens: 100_000, CostUSD: 0.000001}}))
	ctx := budget.WithMeter(t.Context(), m)
	require.NoError(t, ask(ctx, c))
	require.NoError(t, ask(ctx, c), "no price: the cost limit cannot stop it")
	require.Equal(t, []string{
		"Model `test` has no price in `ISSUESMITH_MODEL_PRICES`: its calls count toward the token limits only; cost limits cannot hold for it.",
		"The model endpoint reported no usage: the limits count the bot's local token estimate.",
	}, m.Notes())
	w, err := s.UsageReport(t.Context(), time.Time{}, "role")
	require.NoError(t, err)
	require.Len(t, w, 1)
	require.Positive(t, w[0].PromptTokens, "the local count was charged")
}

// TestLedgerFailureIsAFault: a ledger that cannot be written refuses the
// call (fail closed) and marks the stage's meter with a fault, not a limit.
func TestLedgerFailureIsAFault(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	require.NoError(t, s.Close())
	g := &budget.Gate{Store: s}
	m := budget.NewMeter(scope(1, config.SpendLimits{}))
	_, err := g.Admit(budget.WithMeter(t.Context(), m), llm.Call{Role: llm.RoleCoder, Model: "m", Worst: llm.Usage{PromptTokens: 1}})
	require.Error(t, err)
	require.Nil(t, m.Exceeded())
	require.ErrorIs(t, m.Fault(), err)
}
