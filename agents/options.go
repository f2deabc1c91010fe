package agents

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/planner"
	"github.com/issuesmith/issuesmith/preagent"
	"github.com/issuesmith/issuesmith/repo"
)

// ExplorerOptions maps a repository's settings onto the explorer's: the
// explorer and observer budgets of its roles, and the observer switch.
// base carries what the caller sets (Progress, Guidance); a MaxSteps in
// base.Budget overrides the repository's (bot solve --max-steps), and
// base.NoObserver switches the observer off whatever the repository says.
func ExplorerOptions(base preagent.Options, cfg *config.Repo) preagent.Options {
	o := base
	o.Budget = cfg.Role(llm.RoleExplorer).Budget()
	if base.Budget.MaxSteps > 0 {
		o.Budget.MaxSteps = base.Budget.MaxSteps
	}
	o.ObserverBudget = cfg.Role(llm.RoleObserver).Budget()
	o.NoObserver = !cfg.Observer || base.NoObserver
	o.NoNamedFiles = !cfg.NamedFiles || base.NoNamedFiles
	return o
}

// PlannerOptions maps a repository's settings onto the planner's: its
// planner budget, the repository guidance ("" for none) and, with ws, the
// check of the paths the planner adds against the checkout.
func PlannerOptions(cfg *config.Repo, guidance string, ws *repo.Workspace) planner.Options {
	o := planner.Options{Guidance: guidance, Budget: cfg.Role(llm.RolePlanner).Budget()}
	if ws != nil {
		o.Exists = func(p string) bool {
			_, err := ws.Root().Stat(filepath.FromSlash(p))
			return err == nil
		}
	}
	return o
}

// CoderOptions maps a repository's settings onto the coder's, over base
// (the caller's Sandbox, SkipGoChecks, ...): blocked paths, the setup
// (its packages always checked; its commands under the same rule as the
// checks, coder.Options.Setup), check commands
// — run only when the repository asks (run_commands) and allowChecks lets
// it (bot serve: ISSUESMITH_ALLOW_CHECK_COMMANDS; its checks run the
// repository's code on the bot's machine) — and the coder role's token,
// cost and time budgets for the whole coding run, and its max_steps as the
// model calls of each plan item. It is the one mapping: bot serve,
// bot solve and bot replay all code through it.
func CoderOptions(base coder.Options, cfg *config.Repo, allowChecks bool) coder.Options {
	o := base
	o.Blocked = slices.Clone(cfg.BlockedPaths) // nil stays nil: the coder's defaults
	o.RunCommands = cfg.RunCommands && allowChecks
	o = o.WithEgress(cfg.EgressHosts(), cfg.Egress.Methods)
	o.NoLineEdits = !cfg.LineEdits || base.NoLineEdits
	o.Diagnostics = cfg.Diagnostics || base.Diagnostics
	o.ApplyModel = cfg.ApplyModel || base.ApplyModel
	o.Setup = coder.Setup{Packages: slices.Clone(cfg.Setup.Packages), Commands: slices.Clone(cfg.Setup.Commands),
		IndexURL: cfg.Setup.IndexURL}
	o.CheckCommands = nil
	for _, c := range cfg.Checks {
		o.CheckCommands = append(o.CheckCommands, c.Run)
	}
	b := cfg.Role(llm.RoleCoder).Budget()
	o.MaxTokens, o.MaxWall, o.MaxCost, o.MaxSteps = b.MaxTokens, b.MaxWall, b.MaxCost, b.MaxSteps
	return o
}

// RepoConfig reads the checkout's .github/issuesmith.yml, or the defaults
// when it has none.
func RepoConfig(ws *repo.Workspace) (*config.Repo, error) {
	data, err := ws.ReadBytes(config.RepoPath)
	if err != nil {
		if repo.IsModelError(err) {
			return config.DefaultRepo(), nil
		}
		return nil, fmt.Errorf("read %s: %w", config.RepoPath, err)
	}
	c, err := config.ParseRepo(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", config.RepoPath, err)
	}
	return c, nil
}
