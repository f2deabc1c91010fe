package coder

import (
	"context"
	"errors"
	"sort"
	"strings"
)

// checkAndFix runs the checks on the changed files and, while some fail and
// fix rounds remain, feeds the failures back to the model. Go checks count
// as failing only when their output names a changed file (an unrelated,
// pre-existing build break is reported, not "fixed"); configured check
// commands always count.
func (r *run) checkAndFix(ctx context.Context) error {
	rounds := max(r.c.opts.FixRounds, 0)
	for round := 0; ; round++ {
		cs, err := r.ledger.changeSet(r.tree)
		if err != nil {
			return err
		}
		changed := cs.Paths()
		if len(changed) == 0 {
			return nil
		}
		checks := r.runChecks(ctx, changed, round)
		r.res.Checks = append(r.res.Checks, checks...)
		failing := fixable(checks, changed)
		if len(failing) == 0 || round >= rounds || r.modelErr != nil {
			return nil
		}
		if err := r.fixRound(ctx, round+1, rounds, failing, changed); err != nil {
			return err
		}
	}
}

// runChecks runs the setup (once it succeeded, never again), go build/vet
// of the touched packages, the Python checks of the changed .py files and,
// when allowed and the host has the setup's packages, the configured
// commands.
func (r *run) runChecks(ctx context.Context, changed []string, round int) []CheckResult {
	run := runner{dir: r.tree.dir, timeout: r.c.opts.CheckTimeout, policy: r.c.sandboxFor(r.tree)}
	out := r.setupChecks(ctx, run)
	env := r.checkEnv()
	if !r.c.opts.SkipGoChecks {
		out = append(out, run.goChecks(ctx, goPackages(r.tree, changed))...)
	}
	if !r.c.opts.SkipPythonChecks {
		out = append(out, run.pythonChecks(ctx, pyFiles(r.tree, changed), env)...)
	}
	if r.c.opts.RunCommands && !r.setup.missing {
		out = append(out, run.commandChecks(ctx, r.c.opts.CheckCommands, env)...)
	}
	for i := range out {
		out[i].Round = round
		status := "passed"
		if out[i].Refused {
			status = notRunWhy(out[i])
		} else if !out[i].OK {
			status = "failed"
		}
		r.event("checks", round, "check", "%s %s (%s)", out[i].Command, status, out[i].Duration)
	}
	return out
}

// fixable returns the failing checks worth feeding back.
func fixable(checks []CheckResult, changed []string) []CheckResult {
	var out []CheckResult
	for _, c := range checks {
		if c.OK || c.Refused {
			continue
		}
		switch c.Name {
		case "go build", "go vet", "setup", CheckPyCompile, CheckPyflakes:
			// Fed back only when it names a changed file: a break the
			// change did not make (or a setup's network) is reported.
			if !mentionsAny(c.Output, changed) {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

func mentionsAny(s string, paths []string) bool {
	for _, p := range paths {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// fixRound asks the model to fix the failing checks, with the changed files
// (whole or as outline and regions) in the prompt.
func (r *run) fixRound(ctx context.Context, round, rounds int, failing []CheckResult, changed []string) error {
	fp := fixPrompt{Round: round, Rounds: rounds, Checks: failing, Topic: r.spec.Topic, Files: changed}
	var outputs []string
	for _, c := range failing {
		outputs = append(outputs, c.Output)
	}
	f := focus{terms: focusTerms(outputs...)}
	for _, p := range changed {
		data, exists, err := r.tree.read(p)
		if err != nil {
			return err
		}
		if exists {
			fp.Views = append(fp.Views, buildView(p, data, true, f, r.c.opts.MaxFileLines))
		}
	}
	for p := range r.allowed {
		if r.blockedWhy(p) == "" {
			fp.Allowed = append(fp.Allowed, p)
		}
	}
	sort.Strings(fp.Allowed)
	prompt, err := render(r.c.prompts.fix, fp)
	if err != nil {
		return err
	}
	r.event("checks", round, "prompt", "fix round %d of %d: %d failing check(s)", round, rounds, len(failing))
	s := r.newSession("checks", fp.Allowed)
	err = s.converse(ctx, prompt)
	var me *ModelError
	if errors.As(err, &me) {
		// The items' changes stand; the failing checks are reported.
		r.modelErr = me
		r.event("checks", round, "failed", "fix round %d: %s", round, firstLine(s.fail))
		err = nil
	}
	if err != nil {
		return err
	}
	r.res.Usage = r.res.Usage.Add(s.usage)
	if !s.done {
		r.event("checks", round, "failed", "fix round %d: %s", round, firstLine(s.fail))
	}
	return nil
}
