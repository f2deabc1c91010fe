package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/agents"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/preagent"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/work"
)

// solveRecord is the --json document of `bot solve`: the whole run.
type solveRecord struct {
	Issue   preagent.Issue   `json:"issue"`
	Explore *preagent.Result `json:"explore"`
	Spec    *work.Spec       `json:"spec"`
	Plan    *work.Plan       `json:"plan,omitempty"`
	// Stopped says why the run ended before the last stage, if it did.
	Stopped string `json:"stopped,omitempty"`
	// Code is the coding stage's record (set once that stage runs).
	Code any `json:"code,omitempty"`
	// Usage is per role, with the total last.
	Usage []llm.Line `json:"usage"`
}

// solveFlags are the command line of `bot solve`.
type solveFlags struct {
	dir, issue string
	asJSON     bool
	noObserver bool
	maxSteps   int
	planOnly   bool // stop after the plan (no coding stage)
	force      bool // write into a checkout with uncommitted changes
	branch     string
	noBranch   bool   // write on the current branch
	noProbe    bool   // skip the start-up probe of the models
	session    string // --session FILE: the run's session as JSON lines
}

func newSolveCmd() *cobra.Command { return newSolveCmdWith(os.Environ) }

// newSolveCmdWith builds the command reading model settings from environ
// (tests pass their own).
func newSolveCmdWith(environ func() []string) *cobra.Command {
	var f solveFlags
	cmd := &cobra.Command{
		Use:   "solve --repo DIR --issue FILE|-",
		Short: "explore a local checkout for an issue, then plan and code the change; prints spec, plan and diff",
		Long: "solve runs explorer → planner → coder on a local checkout with the configured model " +
			"(ISSUESMITH_MODEL_* variables), prints the spec and plan as Markdown and then the diff left in the " +
			"working tree on stdout, or the whole run as JSON with --json. --plan-only stops after the plan. " +
			"In a git checkout the change is written on a new branch (--branch, default issuesmith/<title words>; " +
			"--no-branch writes on the current one) and left uncommitted for you to review with git diff. " +
			"Progress (step, action, tokens) goes to stderr.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.dir == "" || f.issue == "" {
				return usageErr("solve needs --repo DIR and --issue FILE (or - for stdin)")
			}
			if err := repoDir(f.dir); err != nil {
				return err
			}
			text, err := readIssue(cmd.InOrStdin(), f.issue)
			if err != nil {
				return err
			}
			m, err := solveModel(environ())
			if err != nil {
				return err
			}
			return runSolve(cmd.Context(), f, m, preagent.ParseIssueText(text), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&f.dir, "repo", "", "checkout to work on")
	cmd.Flags().StringVar(&f.issue, "issue", "", "file holding the issue ("+issueFileFormat+"), or - for stdin")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print the whole run as JSON")
	cmd.Flags().BoolVar(&f.noObserver, "no-observer", false, "switch the observer off (overrides .github/issuesmith.yml)")
	cmd.Flags().IntVar(&f.maxSteps, "max-steps", 0, "explorer step limit (0: the repository's configuration)")
	cmd.Flags().BoolVar(&f.planOnly, "plan-only", false, "stop after printing the plan; write no code")
	cmd.Flags().BoolVar(&f.force, "force", false, "write the change even though the git checkout has uncommitted changes")
	cmd.Flags().StringVar(&f.branch, "branch", "", "branch to create for the change (default issuesmith/<issue title words>)")
	cmd.Flags().BoolVar(&f.noBranch, "no-branch", false, "write the change on the current branch instead of a new one")
	cmd.Flags().BoolVar(&f.noProbe, "no-probe", false, "skip the start-up probe (one tiny tool call per model, printed to stderr)")
	cmd.Flags().StringVar(&f.session, "session", "", "write the run's session (model calls, edits, checks) to FILE as JSON lines")
	return cmd
}

// solveModel reads the model settings for local runs through
// config.ParseModel: the ISSUESMITH_MODEL_* variables (also from
// ISSUESMITH_CONFIG_FILE) with the names, defaults and checks of `bot
// serve`, without the App settings a local run does not need. runSolve
// applies the checkout's .github/issuesmith.yml on top (config.Model.LLMFor).
func solveModel(environ []string) (*config.Model, error) {
	m, err := config.ParseModel(environ)
	if err != nil {
		return nil, err
	}
	if !m.Configured() {
		return nil, usageErr("set %sMODEL_NAME (and %sMODEL_BASE_URL, %sMODEL_API_KEY) to choose the model",
			config.EnvPrefix, config.EnvPrefix, config.EnvPrefix)
	}
	return m, nil
}

// runSolve is the pipeline: explore → spec → plan (→ code) through
// agents.Local, the App's stages on a local checkout, printing as it goes.
// The model is m with the checkout's per-role settings (model, temperature,
// protocol, max_completion_tokens) applied, as `bot serve` applies them for
// a run of that repository.
func runSolve(ctx context.Context, f solveFlags, m *config.Model, is preagent.Issue, stdout, stderr io.Writer) error {
	ws, err := repo.OpenWorkspace(f.dir)
	if err != nil {
		return err
	}
	defer ws.Close()
	if !f.planOnly && !f.force {
		if err := refuseDirty(ctx, ws); err != nil {
			return err
		}
	}
	rcfg, err := agents.RepoConfig(ws)
	if err != nil {
		return err
	}
	lc, err := m.LLMFor(rcfg)
	if err != nil {
		return err
	}
	if lc.Logger == nil {
		// Retries, long waits (what they wait for) and a cut repetition
		// loop reach the terminal: a silent minute is never a mystery.
		lc.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	client, err := llm.NewClient(lc)
	if err != nil {
		return err
	}
	if !f.noProbe {
		probeModels(ctx, client, f, stderr)
	}
	key, _ := m.APIKeyValue()
	sess, err := openSolveSession(ctx, f.session, ws.Dir(), m.BaseURL, key)
	if err != nil {
		return err
	}
	var ledger llm.Ledger
	rec := &solveRecord{Issue: is.Clean()}
	meta := work.Meta{RunID: "local", Version: 1}
	l := &agents.Local{Model: ledger.Track("solve", sess.rec.Model(client)), Repo: rcfg, Coder: solveCoder(), PlanOnly: f.planOnly,
		Explorer: preagent.Options{NoObserver: f.noObserver, Budget: llm.Budget{MaxSteps: f.maxSteps}, Progress: progressPrinter(stderr)},
		Exclude:  []string{pathIn(ws.Dir(), f.issue)},
		Progress: func(ev work.Event) {
			if ev.Kind != work.EventStage {
				return
			}
			stage := ev.Stage
			sess.stage(ctx, stage)
			if stage == "indexing" {
				fmt.Fprintln(stderr, "solve: indexing", ws.Dir())
				return
			}
			fmt.Fprintln(stderr, "solve:", stage)
		},
		OnSpec: func(res *preagent.Result) {
			if !f.asJSON {
				fmt.Fprintln(stdout, forTerminal(work.RenderSpec(res.Spec, meta)))
			}
			if res.Spec.Partial {
				fmt.Fprintf(stderr, "solve: partial spec (%s)\n", res.Reason)
			}
		},
		OnPlan: func(p *work.Plan) {
			if !f.asJSON {
				fmt.Fprintln(stdout, forTerminal(work.RenderPlan(p, work.PlanState{}, meta)))
			}
		},
	}
	if !f.planOnly && !f.noBranch && ws.InGit(ctx) {
		l.BeforeCode = func(ctx context.Context) error {
			name := cmp.Or(f.branch, repo.BranchForTitle(is.Title))
			got, err := ws.NewBranch(ctx, name)
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "solve: writing on the new branch %s (uncommitted; review with git diff)\n", got)
			return nil
		}
	}
	out, err := l.Run(ctx, ws, is)
	if err != nil {
		if out != nil && out.Code != nil {
			// The coder's report still says what each item did (a model
			// failure comes with the result it made).
			sess.code(ctx, out.Code)
			fmt.Fprint(stderr, indent("code: ", out.Code.Report()))
		}
		_ = sess.end(ctx, store.StateFailed)
		return err
	}
	sess.code(ctx, out.Code)
	end := store.StateDone
	if codeFailed(out.Code) != nil {
		end = store.StateFailed
	}
	if err := sess.end(ctx, end); err != nil {
		return err
	}
	rec.Explore, rec.Spec, rec.Plan = out.Explore, out.Spec, out.Plan
	switch out.Stopped {
	case agents.StoppedNeedsAnswers:
		rec.Stopped = out.Stopped
		fmt.Fprintln(stderr, "solve:", rec.Stopped)
	case agents.StoppedPlanOnly:
		rec.Stopped = "--plan-only: the change was planned, not written"
	default:
		rec.Code = out.Code
		printCode(out.Code, f.asJSON, stdout, stderr)
	}
	if err := finishSolve(f, rec, &ledger, stdout, stderr); err != nil {
		return err
	}
	return codeFailed(out.Code)
}

// finishSolve prints the JSON record when asked and the usage summary.
func finishSolve(f solveFlags, rec *solveRecord, ledger *llm.Ledger, stdout, stderr io.Writer) error {
	rec.Usage = usageLines(ledger)
	if n := len(rec.Usage); n > 0 {
		t := rec.Usage[n-1]
		fmt.Fprintf(stderr, "solve: %d prompt + %d completion tokens\n", t.Usage.PromptTokens, t.Usage.CompletionTokens)
	}
	if !f.asJSON {
		return nil
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(rec)
}

// usageLines is the ledger's per-role usage followed by the total.
func usageLines(l *llm.Ledger) []llm.Line {
	lines, total := l.Run("solve")
	return append(lines, total)
}

// progressPrinter writes one stderr line per explorer event.
func progressPrinter(w io.Writer) work.Progress {
	return func(ev work.Event) {
		switch ev.Kind {
		case work.EventStep:
			fmt.Fprintf(w, "explore: step %d  %-48s context %6d tokens · used %d\n",
				ev.Step, ev.Action, ev.PromptTokens, ev.Total.Total())
		default:
			fmt.Fprintf(w, "explore: %s at step %d: %s · used %d\n", ev.Kind, ev.Step, ev.Detail, ev.Total.Total())
		}
	}
}

// refuseDirty stops solve before any model call when the git checkout has
// uncommitted changes: the coder writes into the working tree, and mixing
// its change with yours would make neither easy to review or undo.
func refuseDirty(ctx context.Context, ws *repo.Workspace) error {
	paths, _, err := ws.Uncommitted(ctx)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return nil
	}
	shown := strings.Join(paths[:min(len(paths), 3)], ", ")
	if len(paths) > 3 {
		shown += ", …"
	}
	return usageErr("%s has uncommitted changes (%s): commit or stash them first, or pass --force (or --plan-only)", ws.Dir(), shown)
}

// forTerminal is a spec or plan comment as a terminal reader needs it: the
// Markdown without the hidden marker, the plan's approve box and the
// <sub> footer, which are instructions for the GitHub comment ("tick this
// box", "comment /plan") that mean nothing here.
func forTerminal(comment string) string {
	var out []string
	for _, l := range strings.Split(ghtext.StripMarker(comment), "\n") {
		if strings.HasPrefix(l, "<sub>") || strings.Contains(l, ": tick this box (or comment <code>/implement</code>)") {
			continue
		}
		out = append(out, l)
	}
	text := strings.TrimSpace(strings.Join(out, "\n"))
	return strings.TrimSpace(strings.TrimSuffix(text, "---")) + "\n" // the footer's rule, now footless
}

// probeModels prints what one tiny tool call per model of this run says
// (llm.Client.Probe) before it starts: a model that cannot call tools is
// named with the setting to change instead of failing on the first step, and
// so is a context window too small for the explorer's first request.
func probeModels(ctx context.Context, client *llm.Client, f solveFlags, stderr io.Writer) {
	roles := []llm.Role{llm.RoleExplorer}
	if !f.noObserver {
		roles = append(roles, llm.RoleObserver)
	}
	roles = append(roles, llm.RolePlanner)
	if !f.planOnly {
		roles = append(roles, llm.RoleCoder)
	}
	// The window is checked against the explorer's first request, the
	// largest fixed one.
	client.ExpectPrompt(llm.RoleExplorer, preagent.FirstRequestTokens())
	for _, p := range client.ProbeAll(ctx, roles...) {
		fmt.Fprintln(stderr, "solve: probe:", p.String())
	}
}
