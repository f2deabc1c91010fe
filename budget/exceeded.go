package budget

import (
	"fmt"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/issuesmith/issuesmith/llm"
)

// The scopes a limit belongs to.
const (
	ScopeStage             = "stage"
	ScopeRun               = "run"
	ScopeRepoDay           = "repo_day"
	ScopeRepoMonth         = "repo_month"
	ScopeInstallationDay   = "installation_day"
	ScopeInstallationMonth = "installation_month"
)

// The kinds of a limit.
const (
	KindTokens = "tokens"
	KindCost   = "cost"
)

// Exceeded is a limit a call or a stage would pass. Its Error is the
// text the progress comment shows: which limit, how much was spent and
// how to go on.
type Exceeded struct {
	Scope string
	Role  llm.Role // the stage's role (ScopeStage)
	Kind  string
	Limit float64
	Spent float64
	// Need is the refused call's worst case (0: refused before the
	// stage's first call).
	Need float64
	// Resets is when a day or month window starts again (zero for a
	// stage or a run).
	Resets time.Time
	// Now is when the limit was hit.
	Now time.Time
}

// Unwrap makes an Exceeded an llm.ErrSpendLimit.
func (e *Exceeded) Unwrap() error { return llm.ErrSpendLimit }

// Error says which limit stopped the run, what was spent and how to go
// on.
func (e *Exceeded) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Stopped at %s %s limit: %s, %s spent %s", e.whose(), e.noun(), e.amount(e.Limit),
		e.amount(e.Spent), e.since())
	if e.Need > 0 {
		fmt.Fprintf(&b, "; the next model call needed up to %s", e.amount(e.Need))
	}
	b.WriteString(". ")
	b.WriteString(e.howOn())
	return b.String()
}

func (e *Exceeded) whose() string {
	switch e.Scope {
	case ScopeStage:
		return "the " + string(e.Role) + " stage's"
	case ScopeRun:
		return "this run's"
	case ScopeRepoDay:
		return "the repository's daily"
	case ScopeRepoMonth:
		return "the repository's monthly"
	case ScopeInstallationDay:
		return "the installation's daily"
	}
	return "the installation's monthly"
}

func (e *Exceeded) noun() string {
	if e.Kind == KindCost {
		return "cost"
	}
	return "token"
}

func (e *Exceeded) amount(v float64) string { return Amount(e.Kind, v) }

// Amount writes a number of tokens ("1,234,567 tokens") or a cost
// ("USD 2.50").
func Amount(kind string, v float64) string {
	if kind == KindCost {
		return fmt.Sprintf("USD %.2f", v)
	}
	return humanize.Comma(int64(v)) + " tokens"
}

func (e *Exceeded) since() string {
	switch e.Scope {
	case ScopeStage:
		return "in this stage"
	case ScopeRun:
		return "by this run"
	case ScopeRepoDay, ScopeInstallationDay:
		return "since 00:00 UTC"
	}
	return "since " + monthStart(e.Now).Format("January 2") + " (UTC)"
}

// setting is what raises the limit: the repository's key and the
// server's variable.
func (e *Exceeded) setting() (repoKey, env string) {
	tok := e.Kind == KindTokens
	pick := func(a, b string) string {
		if tok {
			return a
		}
		return b
	}
	switch e.Scope {
	case ScopeStage:
		return "roles." + string(e.Role) + pick(".max_tokens", ".max_cost_usd"), pick("LIMIT_STAGE_TOKENS", "LIMIT_STAGE_COST_USD")
	case ScopeRun:
		return pick("limits.run_tokens", "limits.run_cost_usd"), pick("LIMIT_RUN_TOKENS", "LIMIT_RUN_COST_USD")
	case ScopeRepoDay:
		return pick("limits.day_tokens", "limits.day_cost_usd"), pick("LIMIT_REPO_DAY_TOKENS", "LIMIT_REPO_DAY_COST_USD")
	case ScopeRepoMonth:
		return pick("limits.month_tokens", "limits.month_cost_usd"), pick("LIMIT_REPO_MONTH_TOKENS", "LIMIT_REPO_MONTH_COST_USD")
	case ScopeInstallationDay:
		return "", pick("LIMIT_INSTALLATION_DAY_TOKENS", "LIMIT_INSTALLATION_DAY_COST_USD")
	}
	return "", pick("LIMIT_INSTALLATION_MONTH_TOKENS", "LIMIT_INSTALLATION_MONTH_COST_USD")
}

func (e *Exceeded) howOn() string {
	key, env := e.setting()
	env = "ISSUESMITH_" + env
	raise := fmt.Sprintf("raise `%s` in `.github/issuesmith.yml` (up to the server's `%s`)", key, env)
	if key == "" {
		raise = fmt.Sprintf("ask the bot's operator to raise `%s`", env)
	}
	switch e.Scope {
	case ScopeStage:
		return "To go on, " + raise + " and comment `/retry`."
	case ScopeRun:
		return "Comment `/retry` to go on with a new run (a new run budget), or " + raise + "."
	}
	wait := e.Resets.Sub(e.Now).Round(time.Minute)
	return fmt.Sprintf("Comment `/retry` after %s (in %s), or %s.", e.Resets.Format("2006-01-02 15:04 UTC"), wait, raise)
}

// dayStart and monthStart are the UTC windows' starts.
func dayStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

func monthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}
