package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/agents"
	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/internal/sandbox"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/replay"
	"github.com/issuesmith/issuesmith/replay/oracle"
)

// replayFlags are the command line of `bot replay`.
type replayFlags struct {
	instances, repos, model, out, only, workdir, faults string
	cacheDir, cacheBudget, verdicts, sessions, price    string
	setupHosts, setups                                  []string
	jobs, limit                                         int
	testTimeout, stageTimeout                           time.Duration
}

func newReplayCmd() *cobra.Command { return newReplayCmdWith(os.Environ) }

// newReplayCmdWith builds the command reading model settings from environ.
func newReplayCmdWith(environ func() []string) *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay --instances FILE.jsonl --repos DIR [--model NAME|oracle|gold]",
		Short: "backtest the bot on fixed issues of your repositories (SWE-bench-style instances) and report how many it resolves",
		Long: "replay runs each instance in a fresh clone of its repository at base_commit: the App's pipeline " +
			"(explorer → spec → planner → plan → coder) with the configured model (ISSUESMITH_MODEL_*; --model NAME " +
			"overrides the model name), or --model gold (apply the gold patch: which instances are valid here) or " +
			"--model oracle (a built-in perfect model answering through the agents' real tools). Then the test patch " +
			"is applied and test_cmd runs; resolved means every FAIL_TO_PASS and PASS_TO_PASS test passed. One JSON " +
			"line per instance goes to --out as it finishes (a rerun skips those already there); a summary table ends the run.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.instances == "" || f.repos == "" {
				return usageErr("replay needs --instances FILE.jsonl and --repos DIR")
			}
			return runReplay(cmd.Context(), f, environ(), cmd.ErrOrStderr(), cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.instances, "instances", "", "instance file (JSON lines, SWE-bench field names)")
	fl.StringVar(&f.repos, "repos", "", "folder of repositories: owner__name.git, owner+name/repo or owner/name (git dir or checkout)")
	fl.StringVar(&f.model, "model", "", "gold, oracle, or a model name (default: ISSUESMITH_MODEL_NAME)")
	fl.StringVar(&f.out, "out", "replay-results.jsonl", "results file (JSON lines; appended, and read to resume)")
	fl.StringVar(&f.only, "only", "", "comma-separated instance ids to run")
	fl.IntVar(&f.limit, "limit", 0, "run at most N instances (after --only)")
	fl.IntVarP(&f.jobs, "jobs", "j", 1, "instances in parallel")
	fl.DurationVar(&f.testTimeout, "test-timeout", 20*time.Minute, "time limit of one test run (and of setup)")
	fl.DurationVar(&f.stageTimeout, "stage-timeout", 20*time.Minute, "time limit of each agent stage")
	fl.StringVar(&f.workdir, "workdir", "", "where the instances' clones are made (default: the temporary folder)")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "the sandbox's caches: Go modules (read-only inside) and one build cache per repository (default: <user cache dir>/issuesmith/replay)")
	fl.StringVar(&f.cacheBudget, "cache-budget", "20GiB", "size the module cache and the build caches are each trimmed to after every test run (least recently used first; 0: no bound)")
	fl.StringVar(&f.faults, "faults", "", "RATE[,SEED]: with --model oracle, misbehave (cut, empty, reasoning, calls as text, stale SEARCH, ...) at that share of turns")
	fl.StringArrayVar(&f.setups, "setup", nil, "[OWNER/NAME=]FILE: a file written as a repository's .github/issuesmith.yml whose setup (Debian packages the host must have, commands run in the sandbox before the tests) applies to that repository's instances, or to every instance without OWNER/NAME= (default: each repository's own committed file); repeatable")
	fl.StringSliceVar(&f.setupHosts, "setup-hosts", replay.DefaultSetupHosts, "hosts an instance's setup command may reach through the sandbox's egress proxy (host, host:port or *.domain; the tests reach none)")
	fl.StringVar(&f.sessions, "sessions", "", "database (SQLite file or PostgreSQL URL) where each instance's run keeps its session, as a run of the App does; read them with bot sessions")
	fl.StringVar(&f.price, "price", "", "IN/OUT[/CACHED]: USD per million prompt, completion and cached prompt tokens; each result and the summary show the cost at it (results already in --out are priced again)")
	fl.StringVar(&f.verdicts, "verdicts", "", "file of judged trees (JSON lines): a tree already tested by the same command is judged from it, not tested again")
	return cmd
}

func runReplay(ctx context.Context, f replayFlags, environ []string, stderr, stdout io.Writer) error {
	all, bad, err := replay.LoadInstances(f.instances)
	if err != nil {
		return err
	}
	for _, e := range bad {
		fmt.Fprintln(stderr, "replay:", e)
	}
	insts, err := replay.Select(all, f.only, f.limit)
	if err != nil {
		return usageErr("--only: %v", err)
	}
	var price *llm.Price
	if f.price != "" {
		p, err := config.ParsePrice(f.price)
		if err != nil {
			return usageErr("--price: %v", err)
		}
		price = &p
	}
	caches, err := replayCaches(f)
	if err != nil {
		return err
	}
	var sessions replay.SessionOpener
	if f.sessions != "" {
		open, closeStore, err := replaySessions(ctx, f.sessions)
		if err != nil {
			return err
		}
		defer func() {
			if err := closeStore(); err != nil {
				fmt.Fprintln(stderr, "replay: --sessions:", err)
			}
		}()
		sessions = open
	}
	setups, err := replay.ParseSetups(f.setups)
	if err != nil {
		return usageErr("%v", err)
	}
	solver, err := replaySolver(f, environ, stderr, caches, sessions, setups)
	if err != nil {
		return err
	}
	tests, how := replay.NewTestRunner(ctx, f.testTimeout, nil, caches)
	tests.SetupHosts = f.setupHosts
	tests.Setups = setups
	fmt.Fprintln(stderr, "replay:", how)
	r := &replay.Runner{Repos: f.repos, Solver: solver, Tests: *tests, Jobs: f.jobs, Out: f.out,
		WorkDir: f.workdir, StageTimeout: 3 * f.stageTimeout, Progress: replay.ProgressFor(stderr), Price: price}
	if f.verdicts != "" {
		v, err := replay.OpenTreeVerdicts(f.verdicts)
		if err != nil {
			return err
		}
		defer v.Close()
		fmt.Fprintf(stderr, "replay: %d judged trees in %s\n", v.Len(), f.verdicts)
		r.Verdicts = v
	}
	start := time.Now()
	results, err := r.Run(ctx, insts)
	fmt.Fprintln(stderr)
	replay.Summary(stdout, results)
	fmt.Fprintf(stdout, "\nwall time of this run: %s\n", time.Since(start).Round(time.Second))
	if len(bad) > 0 {
		fmt.Fprintf(stdout, "instance lines not read: %d\n", len(bad))
	}
	return err
}

// replaySolver is the solver of --model.
func replaySolver(f replayFlags, environ []string, stderr io.Writer, caches *sandbox.Caches, sessions replay.SessionOpener, setups replay.Setups) (replay.Solver, error) {
	if f.faults != "" && f.model != "oracle" {
		return nil, usageErr("--faults works with --model oracle only")
	}
	coderOf := agents.Coder{AllowChecks: true, Options: coder.Options{Sandbox: sandbox.Policy{Caches: caches}}}
	switch f.model {
	case "gold":
		return replay.Gold{}, nil
	case "oracle":
		o := replay.Oracle{Coder: coderOf, StageTimeout: f.stageTimeout, Sessions: sessions, Setups: setups}
		if f.faults != "" {
			fs, err := oracle.ParseFaults(f.faults)
			if err != nil {
				return nil, usageErr("--faults: %v", err)
			}
			o.Faults = fs
		}
		return o, nil
	}
	m, err := config.ParseModel(environ)
	if err != nil {
		return nil, err
	}
	if f.model != "" {
		m.Name = f.model
	}
	if !m.Configured() {
		return nil, usageErr("--model: pass gold, or set %sMODEL_NAME (and %sMODEL_BASE_URL, %sMODEL_API_KEY)",
			config.EnvPrefix, config.EnvPrefix, config.EnvPrefix)
	}
	// The user's own backtest: the repository's checks may run, in the
	// coder's sandbox, as under bot solve.
	return &replay.Pipeline{Model: m, Coder: coderOf, StageTimeout: f.stageTimeout, Sessions: sessions, Setups: setups}, nil
}

// replayCaches opens the sandbox's caches of --cache-dir with the budget
// of --cache-budget; the module download uses this process's GOPROXY and
// GOSUMDB.
func replayCaches(f replayFlags) (*sandbox.Caches, error) {
	budget, err := config.ParseSize(f.cacheBudget)
	if err != nil {
		return nil, usageErr("--cache-budget: %v", err)
	}
	dir := f.cacheDir
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, usageErr("--cache-dir: no user cache dir (%v); pass one", err)
		}
		dir = filepath.Join(base, "issuesmith", "replay")
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	return sandbox.NewCaches(dir, sandbox.CacheOptions{ModuleBudget: budget, BuildBudget: budget, DownloadEnv: sandbox.HostGoEnv()})
}
