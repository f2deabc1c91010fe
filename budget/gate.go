package budget

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/store"
)

// Gate is the llm.Gate of bot serve: limits checked against the store's
// usage ledger before every call.
type Gate struct {
	Store *store.Store
	// Now is the clock of the windows (time.Now when nil).
	Now func() time.Time
	// Log receives ledger writes that failed (the reservation stays,
	// counted at its worst case); slog.Default() when nil.
	Log *slog.Logger
	// Charged, when set, is told every charged call (metrics).
	Charged func(Charged)

	// admit serialises this process's reserve-then-sum steps: concurrent
	// calls that each reserved before any summed would all see the
	// others' reservations and all be refused (failing closed, but with
	// nothing admitted: seen with 30 calls on PostgreSQL under load).
	// Replicas still only fail closed against each other.
	admit sync.Mutex
}

// Charged is one charged call and what its repository's and
// installation's windows have left after it.
type Charged struct {
	Scope Scope
	Role  llm.Role
	Model string
	Spent llm.Spent
	Left  []Left
}

// Left is what one window with a limit has left (negative: passed by the
// last call).
type Left struct {
	Window string // ScopeRepoDay, ScopeRepoMonth, ScopeInstallationDay, ScopeInstallationMonth
	Kind   string // KindTokens or KindCost
	Value  float64
}

func (g *Gate) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

func (g *Gate) log() *slog.Logger {
	if g.Log != nil {
		return g.Log
	}
	return slog.Default()
}

// window is one scope's limit and its sum.
type window struct {
	scope  string
	limit  config.Limit
	sum    store.UsageSum
	resets time.Time
}

func (g *Gate) windows(ctx context.Context, sc Scope, now time.Time) ([]window, error) {
	day, month := dayStart(now), monthStart(now)
	w, err := g.Store.UsageWindows(ctx, store.UsageScope{InstallationID: sc.InstallationID, Owner: sc.Owner, Repo: sc.Repo,
		RunID: sc.RunID, Day: day, Month: month})
	if err != nil {
		return nil, err
	}
	out := []window{
		{ScopeRepoDay, sc.Limits.RepoDay, w.RepoDay, day.AddDate(0, 0, 1)},
		{ScopeRepoMonth, sc.Limits.RepoMonth, w.RepoMonth, month.AddDate(0, 1, 0)},
		{ScopeInstallationDay, sc.Limits.InstallationDay, w.InstallationDay, day.AddDate(0, 0, 1)},
		{ScopeInstallationMonth, sc.Limits.InstallationMonth, w.InstallationMonth, month.AddDate(0, 1, 0)},
	}
	if sc.RunID != 0 {
		out = append([]window{{scope: ScopeRun, limit: sc.Limits.Run, sum: w.Run}}, out...)
	}
	return out, nil
}

// over returns the first window whose sum passes its limit (with more
// than need counted: ≥ limit when need is 0), or nil.
func over(ws []window, need store.UsageSum, priced bool, now time.Time) *Exceeded {
	for _, w := range ws {
		e := &Exceeded{Scope: w.scope, Resets: w.resets, Now: now}
		switch {
		case w.limit.Tokens > 0 && passes(float64(w.sum.Tokens), float64(w.limit.Tokens), float64(need.Tokens)):
			e.Kind, e.Limit, e.Spent, e.Need = KindTokens, float64(w.limit.Tokens), float64(w.sum.Tokens-need.Tokens), float64(need.Tokens)
		case priced && w.limit.CostUSD > 0 && passes(w.sum.Cost, w.limit.CostUSD, need.Cost):
			e.Kind, e.Limit, e.Spent, e.Need = KindCost, w.limit.CostUSD, w.sum.Cost-need.Cost, need.Cost
		default:
			continue
		}
		return e
	}
	return nil
}

// passes: a sum that includes a call's worst case (need > 0) passes when
// above the limit; without a call, reaching it is enough.
func passes(sum, limit, need float64) bool {
	if need > 0 {
		return sum > limit
	}
	return sum >= limit
}

// Check refuses a stage before its first model call when one of its
// scope's limits is already spent (an *Exceeded), and records that on m.
func (g *Gate) Check(ctx context.Context, m *Meter) error {
	now := g.now()
	ws, err := g.windows(ctx, m.sc, now)
	if err != nil {
		return fmt.Errorf("spending limits: %w", err)
	}
	if e := over(ws, store.UsageSum{}, true, now); e != nil {
		m.stop(e)
		return e
	}
	for _, w := range ws {
		if w.scope == ScopeRun {
			continue
		}
		if w.limit.Tokens > 0 && float64(w.sum.Tokens) >= 0.8*float64(w.limit.Tokens) {
			nearly(m, w.scope, KindTokens, float64(w.sum.Tokens), float64(w.limit.Tokens))
		}
		if w.limit.CostUSD > 0 && w.sum.Cost >= 0.8*w.limit.CostUSD {
			nearly(m, w.scope, KindCost, w.sum.Cost, w.limit.CostUSD)
		}
	}
	return nil
}

// nearly notes a window a stage starts in at 80% of its limit or more.
func nearly(m *Meter, scope, kind string, sum, limit float64) {
	e := &Exceeded{Scope: scope, Kind: kind}
	m.Note("80:"+scope+":"+kind, fmt.Sprintf("%s %s limit is %d%% spent: %s of %s.",
		capital(e.whose()), e.noun(), int(100*sum/limit), e.amount(sum), e.amount(limit)))
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Admit is llm.Gate: the call's worst case is reserved in the ledger and
// the windows summed with it; a call that would pass a limit is refused
// (its reservation dropped) and stops the stage.
func (g *Gate) Admit(ctx context.Context, c llm.Call) (llm.Charge, error) {
	m := MeterFrom(ctx)
	if m == nil {
		return nil, fmt.Errorf("%w: the call has no spending scope, so no limit could be checked", llm.ErrSpendLimit)
	}
	if e := m.Exceeded(); e != nil {
		return nil, e
	}
	now := g.now()
	need := store.UsageSum{Tokens: int64(c.Worst.Total()), Cost: c.WorstCost}
	if !c.Priced {
		m.Note("price:"+c.Model, fmt.Sprintf("Model `%s` has no price in `ISSUESMITH_MODEL_PRICES`: its calls count toward the token limits only; cost limits cannot hold for it.", c.Model))
	}
	if lim, ok := m.sc.Roles[c.Role]; ok {
		st := m.stageSpent(c.Role)
		ws := []window{{scope: ScopeStage, limit: lim, sum: store.UsageSum{Tokens: st.tokens + need.Tokens, Cost: st.cost + need.Cost}}}
		if e := over(ws, need, c.Priced, now); e != nil {
			e.Role = c.Role
			m.stop(e)
			return nil, e
		}
	}
	sc := m.sc
	g.admit.Lock()
	defer g.admit.Unlock()
	entry := &store.UsageEntry{InstallationID: sc.InstallationID, Owner: sc.Owner, Repo: sc.Repo, Issue: sc.Issue, RunID: sc.RunID,
		Stage: sc.Stage, Role: string(c.Role), Model: c.Model, PromptTokens: int64(c.Worst.PromptTokens),
		CompletionTokens: int64(c.Worst.CompletionTokens), Cost: c.WorstCost, At: now}
	if err := g.Store.ReserveUsage(ctx, entry); err != nil {
		return nil, m.failed(fmt.Errorf("spending limits: %w", err))
	}
	ws, err := g.windows(ctx, sc, now)
	if err == nil {
		if e := over(ws, need, c.Priced, now); e != nil {
			if derr := g.Store.DropUsage(context.WithoutCancel(ctx), entry.ID); derr != nil {
				g.log().Warn("a refused call's reservation stays in the ledger", "err", derr)
			}
			m.stop(e)
			return nil, e
		}
	} else {
		// The reservation stays at its worst case: fail closed.
		return nil, m.failed(fmt.Errorf("spending limits: %w", err))
	}
	return func(ctx context.Context, s llm.Spent) { g.charge(ctx, m, c, entry.ID, ws, need, s) }, nil
}

// charge writes what the call used, notes a repository or installation
// window this call took past 80%, and tells Charged.
func (g *Gate) charge(ctx context.Context, m *Meter, c llm.Call, id int64, ws []window, need store.UsageSum, s llm.Spent) {
	u := s.Usage
	if err := g.Store.ChargeUsage(ctx, id, int64(u.PromptTokens), int64(u.CachedTokens), int64(u.CompletionTokens), s.Cost, s.Estimated); err != nil {
		g.log().Warn("a model call stays charged at its worst case", "err", err)
	}
	m.addStage(c.Role, s)
	if s.Estimated {
		m.Note("estimated", "The model endpoint reported no usage: the limits count the bot's local token estimate.")
	}
	used := store.UsageSum{Tokens: int64(u.Total()), Cost: s.Cost}
	var left []Left
	for _, w := range ws {
		if w.scope == ScopeRun {
			continue
		}
		before := store.UsageSum{Tokens: w.sum.Tokens - need.Tokens, Cost: w.sum.Cost - need.Cost}
		after := store.UsageSum{Tokens: before.Tokens + used.Tokens, Cost: before.Cost + used.Cost}
		if w.limit.Tokens > 0 {
			left = append(left, Left{w.scope, KindTokens, float64(w.limit.Tokens - after.Tokens)})
			crossed(m, w.scope, KindTokens, float64(before.Tokens), float64(after.Tokens), float64(w.limit.Tokens))
		}
		if w.limit.CostUSD > 0 && c.Priced {
			left = append(left, Left{w.scope, KindCost, w.limit.CostUSD - after.Cost})
			crossed(m, w.scope, KindCost, before.Cost, after.Cost, w.limit.CostUSD)
		}
	}
	if g.Charged != nil {
		g.Charged(Charged{Scope: m.sc, Role: c.Role, Model: c.Model, Spent: s, Left: left})
	}
}

// crossed notes a window this call took from under 80% of its limit to
// 80% or more.
func crossed(m *Meter, scope, kind string, before, after, limit float64) {
	if before >= 0.8*limit || after < 0.8*limit {
		return
	}
	e := &Exceeded{Scope: scope, Kind: kind}
	m.Note("80:"+scope+":"+kind, fmt.Sprintf("This run took %s %s limit past 80%%: %s of %s spent.",
		e.whose(), e.noun(), e.amount(after), e.amount(limit)))
}
