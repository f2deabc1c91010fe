package replay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/issuesmith/issuesmith/internal/clip"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/replay/oracle"
	"github.com/issuesmith/issuesmith/work"
)

// Solver changes an instance's clone the way one model mode does.
type Solver interface {
	// Name is the model mode recorded in each result ("gold", "oracle", a
	// model name).
	Name() string
	// Solve changes the clone at dir for in; gold is the instance's gold
	// patch (gold applies it, the oracle answers from it, a real model
	// never sees it). An error wrapped in *StageError names the stage.
	Solve(ctx context.Context, dir string, in *Instance, gold string) (*Solution, error)
}

// Solution is what a Solver spent.
type Solution struct {
	Stages []StageWall
	Usage  llm.Usage
	Cost   float64
	// NotApplied, when set, says why the solver left no change.
	NotApplied string
	// Calls counts the model calls, when the solver knows them (oracle).
	Calls int
	// Faults is what the oracle's injected faults cost (--faults).
	Faults *oracle.Stats
	// SessionBytes is what the run's session stored (--sessions).
	SessionBytes int64
	// Limits name what the solver left out of its work and why (the
	// oracle: a submodule's pointer in the gold patch).
	Limits []string
}

// StageError is a solver's failure in one stage (explore, plan, code, gold).
type StageError struct {
	Stage string
	Err   error
	// Partial is what the stages before it spent.
	Partial *Solution
}

func (e *StageError) Error() string { return e.Stage + ": " + e.Err.Error() }
func (e *StageError) Unwrap() error { return e.Err }

// Runner replays instances.
type Runner struct {
	Repos  string // --repos: where ResolveRepo looks
	Solver Solver
	Tests  TestRunner
	// StageTimeout bounds the solver (the agents' stages bound themselves
	// each; this is the whole solve).
	StageTimeout time.Duration
	Jobs         int
	// Out is the results file: read first (instances already in it are
	// skipped) and appended to as each instance finishes.
	Out string
	// WorkDir holds the instances' clones while they run (default: the
	// system's temporary folder); each is removed after its instance.
	WorkDir string
	// Progress hears the run's course (ProgressFor: a bar on a terminal,
	// lines otherwise): at the start a work.EventCount ("instances", Count
	// already in Out, Of all), each instance's stages (work.EventStage
	// with its ID) and its end (work.EventItem, DoneEvent), from the
	// instances' goroutines.
	Progress work.Progress
	// Verdicts, when set, reuses the test run of a tree already judged
	// (--verdicts).
	Verdicts *TreeVerdicts
	// Price, when set, prices every result's tokens (--price), those read
	// from Out included, so a finished run can be priced again.
	Price *llm.Price
}

// Run replays instances not already in Out and returns every instance's
// result (earlier ones included), in the order given. Cancelling ctx stops
// the run; an instance cut short writes no result, so a rerun redoes it.
func (r *Runner) Run(ctx context.Context, instances []Instance) ([]Result, error) {
	prior, err := ReadResults(r.Out)
	if err != nil {
		return nil, fmt.Errorf("results %s: %w", r.Out, err)
	}
	w, err := openResults(r.Out)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	results := make([]Result, len(instances))
	var todo []int
	for i := range instances {
		if res, ok := prior[instances[i].ID]; ok {
			results[i] = r.priced(res)
			continue
		}
		todo = append(todo, i)
	}
	r.Progress.Emit(work.Event{Kind: work.EventCount, Stage: "instances", Count: len(instances) - len(todo), Of: len(instances)})
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, r.Jobs))
	for _, i := range todo {
		g.Go(func() error {
			if gctx.Err() != nil {
				return gctx.Err()
			}
			res := r.One(gctx, &instances[i])
			if gctx.Err() != nil {
				return gctx.Err() // cut short: not recorded, redone on resume
			}
			res = r.priced(res)
			results[i] = res
			r.Progress.Emit(DoneEvent(res))
			return w.write(res)
		})
	}
	if err := g.Wait(); err != nil {
		return results, err
	}
	return results, ctx.Err()
}

// priced is res with its cost at Price, when set.
func (r *Runner) priced(res Result) Result {
	if r.Price != nil {
		res.Cost = r.Price.Cost(res.Usage)
	}
	return res
}

// One replays one instance in a fresh clone and judges it.
func (r *Runner) One(ctx context.Context, in *Instance) (res Result) {
	start := time.Now()
	res = Result{ID: in.ID, Model: r.Solver.Name()}
	defer func() {
		res.Wall = time.Since(start).Round(time.Millisecond).Seconds()
		res.At = time.Now().UTC().Format(time.RFC3339)
	}()
	fail := func(status string, err error) Result {
		res.Status, res.Reason = status, oneLine(err.Error())
		return res
	}
	say := func(stage string) {
		r.Progress.Emit(work.Event{Kind: work.EventStage, ID: in.ID, Stage: stage})
	}
	// An instance built in code, not read from a file, is checked (and
	// given the default test command) the same way, on a copy.
	inst := *in
	in = &inst
	if err := in.validate(); err != nil {
		return fail(StatusError, fmt.Errorf("instance: %w", err))
	}
	src, err := ResolveRepo(r.Repos, in.Repo)
	if err != nil {
		return fail(StatusError, err)
	}
	tmp, err := os.MkdirTemp(r.WorkDir, "replay-")
	if err != nil {
		return fail(StatusError, err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "repo")
	say("clone")
	t := time.Now()
	err = Checkout(ctx, src, in.BaseCommit, dir)
	res.stage("clone", time.Since(t))
	if err != nil {
		return fail(StatusError, err)
	}
	gold, test, err := Patches(ctx, src, in)
	if err != nil {
		return fail(StatusError, err)
	}
	res.Gold = PatchFiles(gold)
	if !r.solve(ctx, dir, in, gold, &res, say) {
		return res
	}
	say("tests")
	r.test(ctx, dir, in, test, &res)
	return res
}

// solve runs the solver; false means res is final.
func (r *Runner) solve(ctx context.Context, dir string, in *Instance, gold string, res *Result, say func(string)) bool {
	say("solve")
	sctx := ctx
	if r.StageTimeout > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, r.StageTimeout)
		defer cancel()
	}
	sol, err := r.Solver.Solve(sctx, dir, in, gold)
	var se *StageError
	if errors.As(err, &se) && se.Partial != nil {
		sol = se.Partial
	}
	if sol != nil {
		res.Stages = append(res.Stages, sol.Stages...)
		res.Usage, res.Cost = sol.Usage, sol.Cost
		res.Calls, res.Faults, res.SessionBytes = sol.Calls, sol.Faults, sol.SessionBytes
		res.Limits = sol.Limits
	}
	res.Changed, _ = Changed(ctx, dir)
	switch {
	case se != nil:
		res.Status, res.Reason = StatusStageFailed+se.Stage, oneLine(se.Err.Error())
		return false
	case err != nil:
		res.Status, res.Reason = StatusError, oneLine(err.Error())
		return false
	case sol != nil && sol.NotApplied != "":
		res.Status, res.Reason = StatusNotApplied, oneLine(sol.NotApplied)
		return false
	case len(res.Changed) == 0:
		res.Status, res.Reason = StatusNotApplied, "the solver changed no file"
		return false
	}
	return true
}

// test restores the test patch's files to the base, applies the test patch
// and runs the test command.
func (r *Runner) test(ctx context.Context, dir string, in *Instance, test string, res *Result) {
	for _, p := range PatchFiles(test) {
		if _, err := git(ctx, dir, nil, "checkout", "replay-base", "--", p); err != nil {
			_ = os.Remove(filepath.Join(dir, p)) // new in the test patch
		}
	}
	if err := ApplyPatch(ctx, dir, test); err != nil {
		res.Status, res.Reason = StatusError, "test patch does not apply: "+oneLine(err.Error())
		return
	}
	setup, err := r.Tests.Setups.For(ctx, dir, in)
	if err != nil {
		res.Status, res.Reason = StatusStageFailed+"setup", oneLine(err.Error())
		return
	}
	key := ""
	if r.Verdicts != nil {
		var err error
		if key, err = verdictKey(ctx, dir, in, setupKey(setup)); err != nil {
			res.Status, res.Reason = StatusError, "tree of the clone: "+oneLine(err.Error())
			return
		}
		if d, ok := r.Verdicts.get(key); ok {
			res.Reused = d.Instance + " " + d.At
			res.stage("tests", 0)
			r.judge(d.run(in), in, res)
			return
		}
	}
	t := time.Now()
	var env []string
	err = r.Tests.prefetch(ctx, dir)
	if err == nil {
		env, err = r.Tests.RunRepoSetup(ctx, dir, in, setup)
	}
	if err == nil {
		err = r.Tests.RunSetup(ctx, dir, in)
	}
	res.stage("setup", time.Since(t))
	if err != nil {
		res.Status, res.Reason = StatusStageFailed+"setup", oneLine(err.Error())
		return
	}
	run := r.Tests.RunWith(ctx, dir, in, env)
	res.stage("tests", run.Wall)
	if key != "" && ctx.Err() == nil {
		if err := r.Verdicts.keep(key, in, run); err != nil {
			res.Reason = "verdict not kept: " + oneLine(err.Error()) // judged below all the same
		}
	}
	r.judge(run, in, res)
}

// judge sets res's status from a test run.
func (r *Runner) judge(run *TestRun, in *Instance, res *Result) {
	res.PeakRSSKB = run.PeakRSSKB
	v := Judge(in, run.Results)
	res.Failing, res.Broken, res.Skipped = v.Failing, v.Broken, v.Skipped
	switch {
	case run.TimedOut:
		res.Status, res.Reason = StatusStageFailed+"tests", run.Err.Error()
	case v.Resolved:
		res.Status, res.Reason = StatusResolved, v.Reason()
	case len(v.Failing) == 0 && len(v.Broken) == 0 && len(v.Skipped) > 0:
		res.Status, res.Reason = StatusTestsSkipped, v.Reason()
	case len(run.Results) == 0:
		res.Status = StatusTestsFailed
		res.Reason = "no test reported a result (build failed?): " + lastLines(run.Output, 3)
	default:
		res.Status, res.Reason = StatusTestsFailed, v.Reason()
	}
}

// peakRSS is the peak resident set (KiB) of a finished command's tree.
func peakRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}

func oneLine(s string) string {
	return clip.Bytes(strings.Join(strings.Fields(s), " "), 400, "…")
}
