package config

import (
	"path"
	"slices"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/llm"
)

// RepoPath is where a repository keeps its issuesmith configuration.
const RepoPath = ".github/issuesmith.yml"

// RepoVersion is the configuration format this build reads.
const RepoVersion = 1

// Repo is a repository's .github/issuesmith.yml. Every key is optional;
// DefaultRepo gives the values used for missing keys and missing files.
type Repo struct {
	// Version of the format; must be 1.
	Version int `yaml:"version"`
	// Label is the issue label that starts a run.
	Label string `yaml:"label"`
	// AutoImplement goes from plan to code without waiting for approval.
	AutoImplement bool `yaml:"auto_implement"`
	// Draft opens pull requests as drafts.
	Draft bool `yaml:"draft"`
	// BaseBranch is the pull requests' base; "" means the default branch.
	BaseBranch string `yaml:"base_branch"`
	// Roles sets the model and budgets per agent role (explorer, observer,
	// planner, coder, summarizer; apply takes only the model settings); a role left out keeps its defaults, a
	// key left out of a role keeps that default.
	Roles map[string]Role `yaml:"roles"`
	// BlockedPaths are globs (path.Match, plus a trailing "/**" for a whole
	// tree) the coder must never change.
	BlockedPaths []string `yaml:"blocked_paths"`
	// Checks are commands that validate a change (run only when
	// RunCommands is true).
	Checks []Check `yaml:"checks"`
	// RunCommands allows running Checks in the worktree.
	RunCommands bool `yaml:"run_commands"`
	// Setup names the system packages the checks need and the commands
	// that prepare the worktree for them (setup.go).
	Setup Setup `yaml:"setup"`
	// ChecksNetwork is deprecated (kept so existing files still load): it
	// asks for Egress to every host the server's ceiling allows. Checks
	// never get the host's network.
	ChecksNetwork bool `yaml:"checks_network"`
	// Egress names the hosts the sandboxed checks may reach through the
	// bot's proxy; only those the server's ISSUESMITH_EGRESS_HOSTS also
	// allows are reachable.
	Egress Egress `yaml:"egress"`
	// Observer turns the explorer's observer (a second model watching
	// for loops and drift) on or off.
	Observer bool `yaml:"observer"`
	// CI configures how the bot answers its pull requests' failing CI.
	CI CI `yaml:"ci"`
	// LineEdits offers the coder line-range edits (<replace-lines>,
	// edit_lines), each checked against the lines the model quoted.
	LineEdits bool `yaml:"line_edits"`
	// Diagnostics asks language servers (gopls, typescript-language-server,
	// pyright) about every file the coder writes and feeds the errors an
	// edit added back to the model. Off by default: the servers must be
	// installed on the bot's host and cost seconds per run to start.
	Diagnostics bool `yaml:"diagnostics"`
	// NamedFiles previews, in the explorer's first message, the files the
	// issue names (paths, path:line, stack frames, backticked symbols).
	NamedFiles bool `yaml:"named_files"`
	// ApplyModel lets the apply role (roles.apply.model, else the coder's
	// model) rewrite the one region the engine located when a lazy sketch
	// or SEARCH block is still refused after the item's attempts. Off by
	// default.
	ApplyModel bool `yaml:"apply_model"`
	// Limits lower the server's spending limits for this repository
	// (limits.go); a value above the server's ceiling gets the ceiling.
	Limits RepoLimits `yaml:"limits"`
}

// Egress is a repository's request for network access from its checks.
type Egress struct {
	// Hosts are "host", "host:port" or "*.domain" entries.
	Hosts []string `yaml:"hosts"`
	// Methods are plain-HTTP methods allowed besides GET and HEAD.
	Methods []string `yaml:"methods"`
}

// EgressHosts is what the repository asks for: its hosts, or every host
// ("*") under the deprecated checks_network.
func (c *Repo) EgressHosts() []string {
	if c.ChecksNetwork {
		return append([]string{"*"}, c.Egress.Hosts...)
	}
	return c.Egress.Hosts
}

// CI configures the loop that reads the repository's own CI on the bot's
// pull requests and fixes what the bot's change broke.
type CI struct {
	// FixRounds bounds the fix rounds per pull request (0 turns the loop off).
	FixRounds int `yaml:"fix_rounds"`
	// ReadyWhenGreen marks the draft pull request ready for review once CI
	// passes after the bot's rounds.
	ReadyWhenGreen bool `yaml:"ready_when_green"`
}

// MaxFixRounds is the most fix rounds a repository may ask for.
const MaxFixRounds = 10

// Role is one agent role's model and budgets. Zero values mean "the
// default" when merged over DefaultRepo.
type Role struct {
	// Model overrides the server's model for this role.
	Model string `yaml:"model"`
	// MaxSteps bounds the agent's turns.
	MaxSteps int `yaml:"max_steps"`
	// MaxTokens bounds prompt plus completion tokens over the run.
	MaxTokens int `yaml:"max_tokens"`
	// MaxCostUSD bounds the estimated cost.
	MaxCostUSD float64 `yaml:"max_cost_usd"`
	// Timeout bounds the role's wall time, e.g. "15m".
	Timeout Duration `yaml:"timeout"`
	// Temperature overrides the server's sampling temperature, 0..2 (0:
	// the server's setting).
	Temperature float64 `yaml:"temperature"`
	// Protocol overrides how the role acts: "tools" or "text" ("": the
	// server's setting).
	Protocol llm.Protocol `yaml:"protocol"`
	// MaxCompletionTokens caps each model reply (0: the server's setting).
	MaxCompletionTokens int `yaml:"max_completion_tokens"`
}

// Check is one validation command, run with sh -c in the worktree.
type Check struct {
	Name string `yaml:"name"`
	Run  string `yaml:"run"`
}

// Duration is a time.Duration written as "90s" or "15m" in YAML.
type Duration time.Duration

// Budget returns the role's budgets in the agents' terms.
func (r Role) Budget() llm.Budget {
	return llm.Budget{MaxSteps: r.MaxSteps, MaxTokens: r.MaxTokens, MaxCost: r.MaxCostUSD, MaxWall: time.Duration(r.Timeout)}
}

var knownRoles = map[string]bool{
	string(llm.RoleExplorer): true, string(llm.RoleObserver): true, string(llm.RolePlanner): true,
	string(llm.RoleCoder): true, string(llm.RoleSummarizer): true, string(llm.RoleApply): true,
}

func roleList() string {
	var rs []string
	for r := range knownRoles {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	return strings.Join(rs, ", ")
}

// DefaultRepo returns the configuration of a repository without
// .github/issuesmith.yml.
func DefaultRepo() *Repo {
	return &Repo{
		Version: RepoVersion,
		Label:   "issuesmith",
		Draft:   true,
		Roles: map[string]Role{
			string(llm.RoleExplorer):   {MaxSteps: 40, MaxTokens: 400_000, MaxCostUSD: 1, Timeout: Duration(15 * time.Minute)},
			string(llm.RoleObserver):   {MaxSteps: 10, MaxTokens: 60_000, MaxCostUSD: 0.2, Timeout: Duration(15 * time.Minute)},
			string(llm.RolePlanner):    {MaxSteps: 4, MaxTokens: 100_000, MaxCostUSD: 0.5, Timeout: Duration(5 * time.Minute)},
			string(llm.RoleCoder):      {MaxSteps: 30, MaxTokens: 600_000, MaxCostUSD: 2, Timeout: Duration(30 * time.Minute)},
			string(llm.RoleSummarizer): {MaxSteps: 1, MaxTokens: 2_000_000, MaxCostUSD: 1, Timeout: Duration(30 * time.Minute)},
		},
		BlockedPaths: []string{".github/workflows/**", ".github/actions/**"},
		Observer:     true,
		CI:           CI{FixRounds: 3},
		LineEdits:    true,
		NamedFiles:   true,
	}
}

// Role returns the configuration of role r (defaults when not configured).
func (c *Repo) Role(r llm.Role) Role { return c.Roles[string(r)] }

// Blocked reports whether the repo-relative slash path p matches one of
// BlockedPaths. ".git/" is always blocked.
func (c *Repo) Blocked(p string) bool {
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	if p == ".git" || strings.HasPrefix(p, ".git/") {
		return true
	}
	for _, g := range c.BlockedPaths {
		if dir, ok := strings.CutSuffix(g, "/**"); ok {
			if p == dir || strings.HasPrefix(p, dir+"/") {
				return true
			}
			continue
		}
		if ok, _ := path.Match(g, p); ok {
			return true
		}
	}
	return false
}

// ParseRepo decodes a .github/issuesmith.yml strictly over DefaultRepo. An
// unknown key, a value of the wrong type or an invalid value is a *RepoError
// naming the key and its line. Empty input gives the defaults.
func ParseRepo(data []byte) (*Repo, error) {
	c := DefaultRepo()
	if strings.TrimSpace(string(data)) == "" {
		return c, nil
	}
	if err := decodeStrict(data, c); err != nil {
		return nil, err
	}
	return c, nil
}
