package coder

import (
	"context"
	"strings"

	"github.com/issuesmith/issuesmith/internal/procenv"
	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// setupState is one run's setup (Options.Setup): checked and planned
// before the first checks, its commands run until they succeed once.
type setupState struct {
	started bool
	done    bool // the commands ran and succeeded (or there are none)
	// missing: setup.packages names packages the host lacks, so neither
	// the setup commands nor the repository's checks run (they need them).
	missing bool
	plan    SetupPlan
	// carry are results every round's checks repeat (notes, the setup
	// that succeeded), so the last round's list says them too.
	carry []CheckResult
}

// setupChecks checks the setup's packages on the host once, and runs its
// commands in the sandbox (when the repository's commands may run) until
// they succeed; it returns the setup's results for this round.
func (r *run) setupChecks(ctx context.Context, run runner) []CheckResult {
	s := &r.setup
	if !s.started {
		s.started = true
		r.startSetup(ctx, run)
	}
	var out []CheckResult
	if !s.done {
		res := r.runSetup(ctx, run)
		if res.OK || res.Refused {
			s.done = true
			s.carry = append(s.carry, res)
		} else {
			out = append(out, res)
		}
	}
	return append(append([]CheckResult{}, s.carry...), out...)
}

// startSetup checks the packages and plans the commands under the
// sandbox's egress; what it leaves out is said in the carried notes.
func (r *run) startSetup(ctx context.Context, run runner) {
	s, set := &r.setup, r.c.opts.Setup
	if len(set.Packages) > 0 {
		missing, err := MissingPackages(ctx, set.Packages)
		switch {
		case err != nil:
			n := note("setup packages", "not checked: "+err.Error()+"; the checks run as if they were installed")
			n.Note = true
			s.carry = append(s.carry, n)
		case len(missing) > 0:
			s.missing = true
			why := MissingNote(missing)
			if r.c.opts.RunCommands && len(set.Commands)+len(r.c.opts.CheckCommands) > 0 {
				why = "not run: setup commands and the repository's checks: " + why
			}
			s.carry = append(s.carry, note("setup packages", why))
		}
	}
	if !r.c.opts.RunCommands || s.missing || len(set.Commands) == 0 {
		s.done = true
		return
	}
	s.plan = set.Plan(run.policy.Egress)
	if len(s.plan.NeedEgress) > 0 {
		n := note("setup", set.EgressNote(s.plan.NeedEgress))
		n.Note = true
		s.carry = append(s.carry, n)
	}
	if s.plan.Venv && run.policy.Caches == nil && sandbox.DefaultCaches() == nil {
		// Without a cache folder every command gets a fresh one: a venv
		// made by the setup would be gone before the checks.
		s.plan.Venv = false
		n := note("setup", "no virtual environment: the sandbox has no cache folder to keep it in (no user cache dir)")
		n.Note = true
		s.carry = append(s.carry, n)
	}
	if len(s.plan.Run) == 0 {
		s.done = true
	}
}

// runSetup runs the planned commands as one script in the sandbox;
// without bubblewrap they are refused, as check commands are.
func (r *run) runSetup(ctx context.Context, run runner) CheckResult {
	s := &r.setup
	cmd := "setup: " + strings.Join(s.plan.Run, "; ")
	if err := sandbox.Check(); err != nil {
		return CheckResult{Name: "setup", Command: cmd, Refused: true,
			Output: "not run: setup commands run only in a bubblewrap sandbox: " + err.Error()}
	}
	res := run.run(ctx, "setup", []string{"/bin/sh", "-c", r.c.opts.Setup.Script(s.plan)}, nil, true)
	res.Command = cmd
	return res
}

// checkEnv is the environment the checks add: PATH with the virtual
// environment's bin first when the setup made one.
func (r *run) checkEnv() []string {
	if !r.setup.plan.Venv {
		return nil
	}
	path, _ := procenv.Lookup(procenv.Scrubbed(), "PATH")
	return []string{"PATH=" + PathWith(true, path)}
}

// note is a result that was not run, with why.
func note(name, why string) CheckResult {
	return CheckResult{Name: name, Command: name, Refused: true, Output: why}
}

// notRunWhy is a refused result's reason, for reports.
func notRunWhy(c CheckResult) string {
	if why := firstLine(c.Output); why != "" {
		return why
	}
	return "not run"
}
