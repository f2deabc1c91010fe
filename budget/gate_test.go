package budget_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/budget"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

var suite = []struct {
	name string
	fn   func(t *testing.T, s *store.Store)
}{
	{"run limit stops calls before they are sent", testRunLimit},
	{"installation day refuses, next day accepts", testInstallationDay},
	{"80 percent note and the metrics callback", testEightyPercent},
	{"stage limit per role", testStageLimit},
}

func TestGateSQLite(t *testing.T) {
	t.Parallel()
	for _, tc := range suite {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, storetest.SQLite(t)) })
	}
}

func TestGatePostgres(t *testing.T) {
	t.Parallel()
	srv := storetest.StartPostgres(t)
	for _, tc := range suite {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, srv.Open(t)) })
	}
}

// clock is a settable time for the windows.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// client is a model client for srv behind g, completions capped at 100
// tokens and priced at one USD per million tokens of each kind.
func client(t *testing.T, srv *llmtest.Server, g llm.Gate) *llm.Client {
	t.Helper()
	cfg := srv.Config()
	cfg.MaxTokens = 100
	cfg.Prices = map[string]llm.Price{"test": {Prompt: 1, Completion: 1}}
	cfg.Gate = g
	c, err := llm.NewClient(cfg)
	require.NoError(t, err)
	return c
}

func scope(run int64, l config.SpendLimits) budget.Scope {
	return budget.Scope{InstallationID: 9, Owner: "octo", Repo: "demo", Issue: int(run), RunID: run, Stage: "code", Limits: l}
}

func ask(ctx context.Context, c *llm.Client) error {
	_, err := c.Chat(ctx, llm.Request{Role: llm.RoleCoder, Messages: []llm.Message{{Role: llm.User, Content: "go on"}}})
	return err
}

// testRunLimit: calls go through while their worst case fits the run's
// limit; the one that would pass it is refused without reaching the
// server, and so is every later call of the stage; the ledger holds what
// the sent calls used.
func testRunLimit(t *testing.T, s *store.Store) {
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("a").WithUsage(300, 50, 0),
		llmtest.Reply("b").WithUsage(300, 50, 0),
	})
	clk := &clock{time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
	s.SetClock(clk.now)
	g := &budget.Gate{Store: s, Now: clk.now}
	m := budget.NewMeter(scope(1, config.SpendLimits{Run: config.Limit{Tokens: 800}}))
	ctx := budget.WithMeter(t.Context(), m)
	c := client(t, srv, g)
	require.NoError(t, ask(ctx, c))
	require.NoError(t, ask(ctx, c)) // 350 + worst (~110) fits 800
	err := ask(ctx, c)              // 700 + worst does not
	var e *budget.Exceeded
	require.ErrorAs(t, err, &e)
	require.ErrorIs(t, err, llm.ErrSpendLimit)
	require.Equal(t, budget.ScopeRun, e.Scope)
	require.Equal(t, budget.KindTokens, e.Kind)
	require.Equal(t, 700.0, e.Spent)
	require.Contains(t, e.Error(), "Stopped at this run's token limit: 800 tokens, 700 tokens spent by this run; the next model call needed up to 1")
	require.Contains(t, e.Error(), "Comment `/retry` to go on with a new run (a new run budget), or raise `limits.run_tokens` in `.github/issuesmith.yml` (up to the server's `ISSUESMITH_LIMIT_RUN_TOKENS`).")
	require.Same(t, e, m.Exceeded())
	require.ErrorIs(t, ask(ctx, c), llm.ErrSpendLimit, "the stage stays stopped")
	require.Len(t, srv.Requests(), 2, "no call was sent past the limit")

	rows, err := s.UsageReport(t.Context(), clk.t.Add(-time.Hour), "role")
	require.NoError(t, err)
	require.Equal(t, []store.UsageRow{{Key: "coder", Calls: 2, PromptTokens: 600, CompletionTokens: 100, Cost: 700.0 / 1e6}}, rows,
		"the refused reservation was dropped")

	require.ErrorAs(t, g.Check(t.Context(), budget.NewMeter(scope(1, config.SpendLimits{Run: config.Limit{Tokens: 700}}))), &e)
	require.NoError(t, g.Check(t.Context(), budget.NewMeter(scope(2, config.SpendLimits{Run: config.Limit{Tokens: 700}}))),
		"another run has its own budget")
	require.ErrorIs(t, ask(t.Context(), c), llm.ErrSpendLimit, "a call without a scope fails closed")
}

// testInstallationDay: an installation whose day is spent refuses a
// second issue's stage before any call, naming when the window opens
// again; the next UTC day the same stage is accepted.
func testInstallationDay(t *testing.T, s *store.Store) {
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("a").WithUsage(900, 100, 0),
		llmtest.Reply("b").WithUsage(10, 10, 0),
	})
	clk := &clock{time.Date(2026, 11, 25, 18, 30, 0, 0, time.UTC)}
	s.SetClock(clk.now)
	g := &budget.Gate{Store: s, Now: clk.now}
	lim := config.SpendLimits{InstallationDay: config.Limit{Tokens: 1000}}
	first := budget.NewMeter(scope(1, lim))
	require.NoError(t, g.Check(t.Context(), first))
	c := client(t, srv, g)
	require.NoError(t, ask(budget.WithMeter(t.Context(), first), c))

	second := scope(2, lim)
	second.Owner = "other" // another repository of the installation
	m := budget.NewMeter(second)
	err := g.Check(t.Context(), m)
	var e *budget.Exceeded
	require.ErrorAs(t, err, &e)
	require.Equal(t, budget.ScopeInstallationDay, e.Scope)
	require.Equal(t, "Stopped at the installation's daily token limit: 1,000 tokens, 1,000 tokens spent since 00:00 UTC. "+
		"Comment `/retry` after 2026-11-26 00:00 UTC (in 5h30m0s), or ask the bot's operator to raise `ISSUESMITH_LIMIT_INSTALLATION_DAY_TOKENS`.",
		e.Error())
	require.ErrorIs(t, ask(budget.WithMeter(t.Context(), m), c), llm.ErrSpendLimit)
	require.Len(t, srv.Requests(), 1)

	clk.t = clk.t.Add(6 * time.Hour)
	m = budget.NewMeter(second)
	require.NoError(t, g.Check(t.Context(), m))
	require.NoError(t, ask(budget.WithMeter(t.Context(), m), c))
	require.Len(t, srv.Requests(), 2)
}

// testEightyPercent: the call that takes a repository window past 80%
// leaves one note on its meter; Charged hears every call with what the
// windows have left.
func testEightyPercent(t *testing.T, s *store.Store) {
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("a").WithUsage(500, 100, 0),
		llmtest.Reply("b").WithUsage(150, 50, 0),
		llmtest.Reply("c").WithUsage(10, 10, 0),
	})
	var heard []budget.Charged
	g := &budget.Gate{Store: s, Charged: func(c budget.Charged) { heard = append(heard, c) }}
	m := budget.NewMeter(scope(1, config.SpendLimits{RepoMonth: config.Limit{Tokens: 1000}}))
	ctx := budget.WithMeter(t.Context(), m)
	c := client(t, srv, g)
	require.NoError(t, ask(ctx, c))
	require.Empty(t, m.Notes())
	require.NoError(t, ask(ctx, c))
	require.NoError(t, ask(ctx, c))
	require.Equal(t, []string{"This run took the repository's monthly token limit past 80%: 800 tokens of 1,000 tokens spent."}, m.Notes())
	require.Len(t, heard, 3)
	require.Equal(t, []budget.Left{{Window: budget.ScopeRepoMonth, Kind: budget.KindTokens, Value: 180}}, heard[2].Left)
	require.Equal(t, llm.RoleCoder, heard[2].Role)
	require.Equal(t, "octo", heard[2].Scope.Owner)

	next := budget.NewMeter(scope(2, config.SpendLimits{RepoMonth: config.Limit{Tokens: 1000}}))
	require.NoError(t, g.Check(t.Context(), next))
	require.Equal(t, []string{"The repository's monthly token limit is 82% spent: 820 tokens of 1,000 tokens."}, next.Notes(),
		"a stage that starts in a window past 80% says so")
}

// testStageLimit: a role's stage limit holds within one stage job, and
// a call of another role is not held by it.
func testStageLimit(t *testing.T, s *store.Store) {
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("a").WithUsage(100, 50, 0), llmtest.Reply("b").WithUsage(100, 50, 0)})
	g := &budget.Gate{Store: s}
	sc := scope(1, config.SpendLimits{})
	sc.Roles = map[llm.Role]config.Limit{llm.RoleCoder: {Tokens: 250}}
	m := budget.NewMeter(sc)
	ctx := budget.WithMeter(t.Context(), m)
	c := client(t, srv, g)
	require.NoError(t, ask(ctx, c))
	err := ask(ctx, c)
	var e *budget.Exceeded
	require.ErrorAs(t, err, &e)
	require.Equal(t, budget.ScopeStage, e.Scope)
	require.Contains(t, e.Error(), "Stopped at the coder stage's token limit: 250 tokens, 150 tokens spent in this stage")
	require.Contains(t, e.Error(), "raise `roles.coder.max_tokens`")
	other := budget.NewMeter(sc)
	_, err = c.Chat(budget.WithMeter(t.Context(), other), llm.Request{Role: llm.RolePlanner, Messages: []llm.Message{{Role: llm.User, Content: "x"}}})
	require.NoError(t, err)
	require.False(t, errors.Is(err, llm.ErrSpendLimit))
}
