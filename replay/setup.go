package replay

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/internal/procenv"
)

// Setups are the repositories' setups of --setup: files written as a
// repository's .github/issuesmith.yml (read as strictly; their setup
// section is used), by repository ("owner/name", lower case), or under ""
// for every instance of a repository not named. An instance whose
// repository has none here gets the setup of its own committed
// .github/issuesmith.yml (replay-base, read from git: never the tree the
// solver and the tests wrote), if it has one.
type Setups map[string]coder.Setup

// ParseSetups reads --setup values, "[owner/name=]FILE" each.
func ParseSetups(vals []string) (Setups, error) {
	s := Setups{}
	for _, v := range vals {
		repo, file, ok := strings.Cut(v, "=")
		if !ok {
			repo, file = "", v
		}
		repo = strings.ToLower(strings.TrimSpace(repo))
		if _, dup := s[repo]; dup {
			return nil, fmt.Errorf("--setup: two files for %s", nameOr(repo, "every repository"))
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--setup: %w", err)
		}
		cfg, err := config.ParseRepo(data)
		if err != nil {
			return nil, fmt.Errorf("--setup %s: %w", file, err)
		}
		s[repo] = setupOf(cfg.Setup)
	}
	return s, nil
}

func nameOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func setupOf(c config.Setup) coder.Setup {
	return coder.Setup{Packages: c.Packages, Commands: c.Commands, IndexURL: c.IndexURL}
}

// given is the setup --setup gives in's repository, if any.
func (s Setups) given(in *Instance) (coder.Setup, bool) {
	if v, ok := s[strings.ToLower(in.Repo)]; ok {
		return v, true
	}
	v, ok := s[""]
	return v, ok
}

// For is the setup of in's tests in the clone at dir: --setup's, else the
// committed file's (a broken one is an error naming its key and line).
func (s Setups) For(ctx context.Context, dir string, in *Instance) (coder.Setup, error) {
	if v, ok := s.given(in); ok {
		return v, nil
	}
	data, err := git(ctx, dir, nil, "show", "--no-textconv", "replay-base:"+config.RepoPath)
	if err != nil {
		return coder.Setup{}, nil // no file: no setup
	}
	cfg, err := config.ParseRepo(data)
	if err != nil {
		return coder.Setup{}, err
	}
	return setupOf(cfg.Setup), nil
}

// setupKey is what a verdict depends on besides the tree and the
// commands: "" for no setup.
func setupKey(s coder.Setup) string {
	if len(s.Packages)+len(s.Commands) == 0 && s.IndexURL == "" {
		return ""
	}
	return strings.Join(s.Packages, " ") + "\x00" + strings.Join(s.Commands, "\x00") + "\x00" + s.IndexURL
}

// RunRepoSetup prepares the clone at dir for its tests with setup: the
// host must have its packages (else a *SetupError naming them and the
// apt-get line: the tests would fail for want of them, not for the fix);
// its commands run in the sandbox with SetupHosts, in a virtual
// environment kept with the repository's caches when SetupHosts allow a
// package index. A pip install without one is a *SetupError too. It
// returns the environment the tests then add (PATH through the venv).
func (r *TestRunner) RunRepoSetup(ctx context.Context, dir string, in *Instance, setup coder.Setup) ([]string, error) {
	missing, err := coder.MissingPackages(ctx, setup.Packages)
	if err != nil {
		return nil, &SetupError{Msg: err.Error()}
	}
	if len(missing) > 0 {
		return nil, &SetupError{Msg: coder.MissingNote(missing)}
	}
	if len(setup.Commands) == 0 {
		return nil, nil
	}
	if !r.Sandbox {
		return nil, &SetupError{Msg: "setup commands run only in the bubblewrap sandbox"}
	}
	plan := setup.Plan(r.setupEgress())
	if len(plan.NeedEgress) > 0 {
		return nil, &SetupError{Msg: strings.Replace(setup.EgressNote(plan.NeedEgress), "egress.hosts, and the operator in ISSUESMITH_EGRESS_HOSTS",
			"--setup-hosts", 1)}
	}
	if err := r.runSetupLine(ctx, dir, in, setup.Script(plan), "setup commands"); err != nil {
		return nil, err
	}
	if !plan.Venv {
		return nil, nil
	}
	path, _ := procenv.Lookup(append(procenv.Scrubbed(), r.Env...), "PATH")
	return []string{"PATH=" + coder.PathWith(true, path)}, nil
}

// SetupError is a setup the tests cannot run after.
type SetupError struct{ Msg string }

func (e *SetupError) Error() string { return "setup: " + e.Msg }
