package config

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/issuesmith/issuesmith/llm"
)

// Limits are the server's spending limits and loop guard
// (ISSUESMITH_LIMIT_*, ISSUESMITH_LOOP_*, ISSUESMITH_BOTS). Each spending
// limit is the value a repository gets and the ceiling its
// .github/issuesmith.yml may lower but never raise; 0 means no limit of
// that kind. Tokens are prompt plus completion tokens; costs are priced
// with ISSUESMITH_MODEL_PRICES.
type Limits struct {
	// StageTokens and StageCostUSD cap every role's max_tokens and
	// max_cost_usd (one stage of one run).
	StageTokens  int64   `env:"LIMIT_STAGE_TOKENS" envDefault:"2000000"`
	StageCostUSD float64 `env:"LIMIT_STAGE_COST_USD" envDefault:"5"`
	// RunTokens and RunCostUSD limit one run: every stage, revise round
	// and CI round of it.
	RunTokens  int64   `env:"LIMIT_RUN_TOKENS" envDefault:"5000000"`
	RunCostUSD float64 `env:"LIMIT_RUN_COST_USD" envDefault:"20"`
	// RepoDayTokens and RepoDayCostUSD limit one repository per UTC day.
	RepoDayTokens  int64   `env:"LIMIT_REPO_DAY_TOKENS" envDefault:"50000000"`
	RepoDayCostUSD float64 `env:"LIMIT_REPO_DAY_COST_USD" envDefault:"100"`
	// RepoMonthTokens and RepoMonthCostUSD limit one repository per
	// calendar month (UTC).
	RepoMonthTokens  int64   `env:"LIMIT_REPO_MONTH_TOKENS" envDefault:"1000000000"`
	RepoMonthCostUSD float64 `env:"LIMIT_REPO_MONTH_COST_USD" envDefault:"1000"`
	// InstallationDayTokens and InstallationDayCostUSD limit every
	// repository of one installation together per UTC day.
	InstallationDayTokens  int64   `env:"LIMIT_INSTALLATION_DAY_TOKENS" envDefault:"100000000"`
	InstallationDayCostUSD float64 `env:"LIMIT_INSTALLATION_DAY_COST_USD" envDefault:"200"`
	// InstallationMonthTokens and InstallationMonthCostUSD limit every
	// repository of one installation together per calendar month (UTC).
	InstallationMonthTokens  int64   `env:"LIMIT_INSTALLATION_MONTH_TOKENS" envDefault:"2000000000"`
	InstallationMonthCostUSD float64 `env:"LIMIT_INSTALLATION_MONTH_COST_USD" envDefault:"2000"`
	// LoopMaxPerHour is the loop guard: the most runs, the most revise
	// rounds and the most CI rounds one issue gets in an hour (each counted
	// apart).
	LoopMaxPerHour int `env:"LOOP_MAX_PER_HOUR" envDefault:"6"`
	// Bots are GitHub logins of other bots: their events never start
	// work (accounts of type Bot and the App itself never do either).
	Bots []string `env:"BOTS"`
}

// Limit is one scope's token and cost limit (0: none of that kind).
type Limit struct {
	Tokens  int64
	CostUSD float64
}

// SpendLimits are the limits one run works under.
type SpendLimits struct {
	Run, RepoDay, RepoMonth, InstallationDay, InstallationMonth Limit
}

// RepoLimits are a repository's own spending limits (limits: in
// .github/issuesmith.yml); each may only lower the server's. 0 keeps the
// server's.
type RepoLimits struct {
	RunTokens    int64   `yaml:"run_tokens"`
	RunCostUSD   float64 `yaml:"run_cost_usd"`
	DayTokens    int64   `yaml:"day_tokens"`
	DayCostUSD   float64 `yaml:"day_cost_usd"`
	MonthTokens  int64   `yaml:"month_tokens"`
	MonthCostUSD float64 `yaml:"month_cost_usd"`
}

// botLogin is a GitHub login, with the "[bot]" suffix apps have.
var botLogin = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(\[bot\])?$`)

// validate names every negative limit by its variable.
func (l *Limits) validate() []error {
	var errs []error
	bad := func(name, why string) { errs = append(errs, fmt.Errorf("%s%s: %s", EnvPrefix, name, why)) }
	for _, v := range []struct {
		name string
		neg  bool
	}{
		{"LIMIT_STAGE_TOKENS", l.StageTokens < 0}, {"LIMIT_STAGE_COST_USD", l.StageCostUSD < 0},
		{"LIMIT_RUN_TOKENS", l.RunTokens < 0}, {"LIMIT_RUN_COST_USD", l.RunCostUSD < 0},
		{"LIMIT_REPO_DAY_TOKENS", l.RepoDayTokens < 0}, {"LIMIT_REPO_DAY_COST_USD", l.RepoDayCostUSD < 0},
		{"LIMIT_REPO_MONTH_TOKENS", l.RepoMonthTokens < 0}, {"LIMIT_REPO_MONTH_COST_USD", l.RepoMonthCostUSD < 0},
		{"LIMIT_INSTALLATION_DAY_TOKENS", l.InstallationDayTokens < 0},
		{"LIMIT_INSTALLATION_DAY_COST_USD", l.InstallationDayCostUSD < 0},
		{"LIMIT_INSTALLATION_MONTH_TOKENS", l.InstallationMonthTokens < 0},
		{"LIMIT_INSTALLATION_MONTH_COST_USD", l.InstallationMonthCostUSD < 0},
	} {
		if v.neg {
			bad(v.name, "must not be negative (0: no limit)")
		}
	}
	if l.LoopMaxPerHour < 1 {
		bad("LOOP_MAX_PER_HOUR", "must be at least 1")
	}
	for _, b := range l.Bots {
		if !botLogin.MatchString(b) {
			bad("BOTS", "must be GitHub logins separated by commas")
			break
		}
	}
	return errs
}

// IsBot reports whether login is one of Bots (case-insensitive).
func (l *Limits) IsBot(login string) bool {
	return slices.ContainsFunc(l.Bots, func(b string) bool { return strings.EqualFold(b, login) })
}

// For returns the limits a run of the repository whose settings are c
// works under, and lowers c's role budgets to the stage ceiling. Every
// value the file asked above the server's ceiling is a note ("... the
// server's ceiling applies"), for the progress comment.
func (l *Limits) For(c *Repo) (SpendLimits, []string) {
	var notes []string
	def := DefaultRepo()
	for _, name := range slices.Sorted(maps.Keys(c.Roles)) {
		r := c.Roles[name]
		d := def.Roles[name]
		r.MaxTokens = int(lower(int64(r.MaxTokens), int64(d.MaxTokens), l.StageTokens, "roles."+name+".max_tokens", "LIMIT_STAGE_TOKENS", &notes))
		r.MaxCostUSD = lower(r.MaxCostUSD, d.MaxCostUSD, l.StageCostUSD, "roles."+name+".max_cost_usd", "LIMIT_STAGE_COST_USD", &notes)
		c.Roles[name] = r
	}
	rl := c.Limits
	out := SpendLimits{
		Run: Limit{lower(rl.RunTokens, 0, l.RunTokens, "limits.run_tokens", "LIMIT_RUN_TOKENS", &notes),
			lower(rl.RunCostUSD, 0, l.RunCostUSD, "limits.run_cost_usd", "LIMIT_RUN_COST_USD", &notes)},
		RepoDay: Limit{lower(rl.DayTokens, 0, l.RepoDayTokens, "limits.day_tokens", "LIMIT_REPO_DAY_TOKENS", &notes),
			lower(rl.DayCostUSD, 0, l.RepoDayCostUSD, "limits.day_cost_usd", "LIMIT_REPO_DAY_COST_USD", &notes)},
		RepoMonth: Limit{lower(rl.MonthTokens, 0, l.RepoMonthTokens, "limits.month_tokens", "LIMIT_REPO_MONTH_TOKENS", &notes),
			lower(rl.MonthCostUSD, 0, l.RepoMonthCostUSD, "limits.month_cost_usd", "LIMIT_REPO_MONTH_COST_USD", &notes)},
		InstallationDay:   Limit{l.InstallationDayTokens, l.InstallationDayCostUSD},
		InstallationMonth: Limit{l.InstallationMonthTokens, l.InstallationMonthCostUSD},
	}
	return out, notes
}

// lower is the value asked (0: none asked) under ceiling (0: none); an
// ask above the ceiling that is not the built-in default is noted.
func lower[T int64 | float64](asked, def, ceiling T, key, env string, notes *[]string) T {
	switch {
	case ceiling == 0:
		return asked
	case asked == 0:
		return ceiling
	case asked <= ceiling:
		return asked
	}
	if asked != def {
		*notes = append(*notes, fmt.Sprintf("`%s` asks for %s; the server's ceiling of %s (%s%s) applies",
			key, number(asked), number(ceiling), EnvPrefix, env))
	}
	return ceiling
}

// number writes a limit for people: whole numbers with thousands
// separators, costs with two decimals.
func number[T int64 | float64](v T) string {
	switch x := any(v).(type) {
	case int64:
		return humanize.Comma(x) // the house's one thousands separator
	case float64:
		return fmt.Sprintf("%.2f", x)
	}
	return ""
}

// StageBudget is role r's stage limit as c sets it (after For).
func (c *Repo) StageBudget(r llm.Role) Limit {
	rc := c.Role(r)
	return Limit{Tokens: int64(rc.MaxTokens), CostUSD: rc.MaxCostUSD}
}
