package agents

import (
	"context"
	"fmt"
	"time"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/planner"
	"github.com/issuesmith/issuesmith/preagent"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/summaries"
	"github.com/issuesmith/issuesmith/work"
)

// Local runs the App's stages on a local worktree without GitHub: explore →
// spec → plan (approved as it is) → code, with the repository's settings
// mapped onto each agent exactly as bot serve maps them (ExplorerOptions,
// PlannerOptions, CoderOptions). bot solve and bot replay use it; the
// change is left in the worktree.
type Local struct {
	// Model answers every role; apply the repository's role settings first
	// (config.Model.LLMFor, or Models.ForRepo) and wrap it in an
	// llm.Ledger to account per role.
	Model llm.Model
	// Repo is the repository's settings (RepoConfig reads them).
	Repo *config.Repo
	// Explorer are the explorer's base options (Progress, a MaxSteps
	// override, NoObserver); see ExplorerOptions.
	Explorer preagent.Options
	// Coder is the coder stage's construction: its Options (Sandbox, ...)
	// and AllowChecks (whether the repository's run_commands may run).
	Coder Coder
	// Cache, when set, serves file summaries to the index (nil: outlines).
	Cache summaries.Cache
	// Exclude are repo-relative paths left out of the index (an issue file
	// inside the checkout would match its own words best).
	Exclude []string
	// PlanOnly stops after the plan: no code is written.
	PlanOnly bool
	// StageTimeout bounds each stage on its own; 0 means only ctx bounds it.
	StageTimeout time.Duration
	// Progress, when set, hears each stage start (a work.EventStage:
	// "indexing", "planning", "coding"); OnSpec and OnPlan, the spec and
	// plan as soon as they exist.
	Progress work.Progress
	OnSpec   func(*preagent.Result)
	OnPlan   func(*work.Plan)
	// BeforeCode, when set, runs once the plan is made and before the
	// coder writes anything (bot solve switches to a new branch there); an
	// error ends the run with nothing written.
	BeforeCode func(ctx context.Context) error
}

// Outcome is what a Local run produced, stage by stage.
type Outcome struct {
	Explore *preagent.Result
	Spec    *work.Spec
	Plan    *work.Plan
	Code    *coder.Result
	// Stopped says why the run ended before coding: a spec that needs
	// answers, or PlanOnly.
	Stopped string
	// Stages is the wall time of each stage that ran, in order.
	Stages []StageTime
}

// StageTime is one stage's wall time.
type StageTime struct {
	Stage string        `json:"stage"`
	Wall  time.Duration `json:"wall"`
}

// Stop reasons of Outcome.Stopped.
const (
	StoppedNeedsAnswers = "the issue needs answers before a plan can be made"
	StoppedPlanOnly     = "plan only: the change was planned, not written"
)

// Run runs the stages on the worktree ws (the one confined view every
// agent reads and the coder writes through). A Go error means a stage
// could not finish (a *StageError names it); out holds what the stages
// before it produced.
func (l *Local) Run(ctx context.Context, ws *repo.Workspace, is preagent.Issue) (out *Outcome, err error) {
	out = &Outcome{}
	guidance, err := preagent.LoadGuidance(ws, 0)
	if err != nil {
		return out, err
	}
	err = l.stage(ctx, out, "explore", func(ctx context.Context) error {
		l.say("indexing")
		opts := l.Explorer
		opts.Guidance, opts.NoGuidance = guidance, guidance == ""
		res, err := explore(ctx, l.Model, ws, summaries.Options{Cache: l.Cache}, ExplorerOptions(opts, l.Repo), is, l.Exclude...)
		if err != nil {
			return err
		}
		out.Explore, out.Spec = res, res.Spec
		return nil
	})
	if err != nil {
		return out, err
	}
	if l.OnSpec != nil {
		l.OnSpec(out.Explore)
	}
	if out.Spec.NeedsAnswers() {
		out.Stopped = StoppedNeedsAnswers
		return out, nil
	}
	err = l.stage(ctx, out, "plan", func(ctx context.Context) error {
		l.say("planning")
		pl, err := planner.New(l.Model, PlannerOptions(l.Repo, guidance, ws))
		if err != nil {
			return err
		}
		out.Plan, err = pl.Plan(ctx, out.Spec)
		return err
	})
	if err != nil {
		return out, err
	}
	if l.OnPlan != nil {
		l.OnPlan(out.Plan)
	}
	if l.PlanOnly {
		out.Stopped = StoppedPlanOnly
		return out, nil
	}
	if l.BeforeCode != nil {
		if err := l.BeforeCode(ctx); err != nil {
			return out, &StageError{Stage: "code", Err: err}
		}
	}
	err = l.stage(ctx, out, "code", func(ctx context.Context) error {
		c, err := l.Coder.New(l.Model, l.Repo, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", config.RepoPath, err)
		}
		l.say("coding")
		out.Code, err = c.Implement(ctx, ws, out.Spec, out.Plan)
		return err
	})
	return out, err
}

// stage runs fn under the stage's own deadline and records its wall time.
func (l *Local) stage(ctx context.Context, out *Outcome, name string, fn func(ctx context.Context) error) error {
	if l.StageTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, l.StageTimeout)
		defer cancel()
	}
	start := time.Now()
	err := fn(ctx)
	out.Stages = append(out.Stages, StageTime{Stage: name, Wall: time.Since(start)})
	if err != nil {
		return &StageError{Stage: name, Err: err}
	}
	return nil
}

// StageError is the error of a Local run's stage ("explore", "plan",
// "code"): its text is the stage's own error, Stage says which failed.
type StageError struct {
	Stage string
	Err   error
}

func (e *StageError) Error() string { return e.Err.Error() }
func (e *StageError) Unwrap() error { return e.Err }

func (l *Local) say(stage string) {
	l.Progress.Emit(work.Event{Kind: work.EventStage, Stage: stage})
}
