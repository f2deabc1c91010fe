package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/budget"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

// meter puts the stage's spending scope in ctx (every model call of the
// stage is checked against it: budget.Gate) and, for the stages that
// start work on an issue (explore, plan, code), refuses the stage before
// any model call when one of its scope's limits is spent. Without a
// Deps.Budget nothing is limited.
func (s *runJob) meter(ctx context.Context, stage string) (context.Context, error) {
	g := s.e.d.Budget
	if g == nil {
		return ctx, nil
	}
	lim, roles, notes := s.e.limitsFor(s.cfg)
	m := budget.NewMeter(budget.Scope{InstallationID: s.run.InstallationID, Owner: s.run.Owner, Repo: s.run.Repo,
		Issue: s.run.Issue, RunID: s.run.ID, Stage: stage, Limits: lim, Roles: roles})
	for _, n := range notes {
		m.Note("ceiling:"+n, n)
	}
	s.spend = m
	ctx = budget.WithMeter(ctx, m)
	switch stage {
	case StageExplore, StagePlan, StageCode:
		if err := g.Check(ctx, m); err != nil {
			var e *budget.Exceeded
			if errors.As(err, &e) {
				return ctx, permanent(e)
			}
			return ctx, err
		}
	}
	return ctx, nil
}

// limitsFor is what a repository whose settings are cfg works under: the
// spending limits, each role's stage limit (cfg's role budgets are lowered
// to the server's stage ceiling) and the notes on what was lowered.
func (e *Engine) limitsFor(cfg *config.Repo) (config.SpendLimits, map[llm.Role]config.Limit, []string) {
	var l config.Limits
	if e.o.Limits != nil {
		l = *e.o.Limits
	}
	lim, notes := l.For(cfg)
	roles := map[llm.Role]config.Limit{}
	for name := range cfg.Roles {
		roles[llm.Role(name)] = cfg.StageBudget(llm.Role(name))
	}
	return lim, roles, notes
}

// refreshMeter is the spending scope of a summary refresh: the
// repository's and installation's windows, no run.
func (e *Engine) refreshMeter(ctx context.Context, a RefreshArgs, cfg *config.Repo) context.Context {
	if e.d.Budget == nil {
		return ctx
	}
	lim, roles, _ := e.limitsFor(cfg)
	return budget.WithMeter(ctx, budget.NewMeter(budget.Scope{InstallationID: a.InstallationID, Owner: a.Owner, Repo: a.Repo,
		Stage: "refresh", Limits: lim, Roles: roles}))
}

// overLimit is the limit that stopped the stage's model calls, or nil.
func (s *runJob) overLimit() *budget.Exceeded {
	if s.spend == nil {
		return nil
	}
	return s.spend.Exceeded()
}

// limited ends a stage whose model calls hit a limit: the run fails with
// the limit's message (what the stage had validated is kept: the code
// stage pushed its done items before it finished the run), instead of
// going on to a next stage or retrying.
func (s *runJob) limited(t transition, err error) (transition, error) {
	if f := s.spendFault(); f != nil && !errors.Is(err, store.ErrClosed) {
		return stay, f // the limits could not be checked: try the stage again
	}
	e := s.overLimit()
	failed := t.o.Kind == lifecycle.End && t.o.State == lifecycle.Failed
	if e == nil || failed && err == nil ||
		errors.Is(err, store.ErrClosed) || errors.Is(err, context.Canceled) {
		return t, err
	}
	if e.Scope == budget.ScopeStage && err == nil {
		return t, nil // a role's own budget: the stage ended with what it had, as it always did
	}
	return stay, permanent(e)
}

// spendFault is the ledger failure that refused a model call of the
// stage (not a limit): the stage's result is not to be kept, it is tried
// again.
func (s *runJob) spendFault() error {
	if s.spend == nil {
		return nil
	}
	if f := s.spend.Fault(); f != nil {
		return fmt.Errorf("the spending limits could not be checked: %w", f)
	}
	return nil
}

// limitReason adds the limit that stopped the stage to a failed run's
// reason.
func (s *runJob) limitReason(reason string) string {
	e := s.overLimit()
	if e == nil || strings.Contains(reason, e.Error()) {
		return reason
	}
	return strings.TrimSpace(reason + "\n\n" + e.Error())
}

// limitNotes are the spending notes shown under the progress comment: a
// limit the repository asked above the server's ceiling, a window this
// run took past 80%, a model without a price.
func (s *runJob) limitNotes() string {
	if s.spend == nil {
		return ""
	}
	var b strings.Builder
	for _, n := range s.spend.Notes() {
		fmt.Fprintf(&b, "\n**Limits:** %s\n", n)
	}
	return b.String()
}
