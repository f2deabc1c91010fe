package workflow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"

	"github.com/issuesmith/issuesmith/budget"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	secrets "github.com/issuesmith/issuesmith/internal/redact"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

// runJob is one job's view of its run: the run row, the installation's
// GitHub client and the repository. It lives for one job.
type runJob struct {
	e   *Engine
	log *slog.Logger
	run *Run
	gh  GitHub
	ref RepoRef
	cfg *config.Repo // the repository's settings; loaded by loadConfig
	// items are the plan items' statuses while (and after) the coder
	// works, shown in the progress comment; nil outside the code stage.
	items  []ItemStatus
	itemMu sync.Mutex // serialises the coder's progress events
	// diags are the language-server errors the coder left, shown under
	// the items; nil when none (or diagnostics are off).
	diags []string
	// rec is the job's part of the run's session (recording.go).
	rec recording
	// spend is the stage's spending state (budget.go); nil without limits.
	spend *budget.Meter
}

// RepoConfigPath is where a repository keeps its issuesmith settings.
const RepoConfigPath = ".github/issuesmith.yml"

// loadConfig reads the repository's settings from its default branch:
// missing file → defaults; invalid file → a permanent failure whose text
// names the wrong key, so the run ends with a comment and nothing runs.
func (s *runJob) loadConfig(ctx context.Context) error {
	cfg, err := readRepoConfig(ctx, s.gh, s.run.Owner, s.run.Repo, s.ref.Base)
	if err != nil {
		return err
	}
	s.cfg = cfg
	s.ref.Blocked = append([]string{}, cfg.BlockedPaths...)
	if cfg.BaseBranch != "" {
		s.ref.Base = cfg.BaseBranch
	}
	return nil
}

func (e *Engine) newRunJob(ctx context.Context, log *slog.Logger, run *Run, job string) (*runJob, error) {
	gh, err := e.d.GitHub.Client(ctx, run.InstallationID)
	if err != nil {
		return nil, fmt.Errorf("github client for installation %d: %w", run.InstallationID, err)
	}
	r, err := gh.Repository(ctx, run.Owner, run.Repo)
	if err != nil {
		return nil, err
	}
	ref := RepoRef{InstallationID: run.InstallationID, Owner: run.Owner, Repo: run.Repo,
		Base: r.DefaultBranch, CloneURL: r.CloneURL, Job: job}
	if ref.Base == "" {
		ref.Base = "main"
	}
	return &runJob{e: e, log: log, run: run, gh: recordingGitHub{GitHub: gh, forge: e.forgeName(run.InstallationID)}, ref: ref}, nil
}

// branch is the run's branch: one per issue, so a resumed or repeated run
// finds its earlier work.
func (s *runJob) branch() string { return fmt.Sprintf(runBranch, s.run.Issue) }

// runBranch is the format of a run's branch name.
const runBranch = "issuesmith/issue-%d"

// RunBranchIssue returns the issue whose runs use branch, if it is one of
// the bot's branches.
func RunBranchIssue(branch string) (int, bool) {
	var n int
	if _, err := fmt.Sscanf(branch, runBranch, &n); err != nil || n <= 0 || fmt.Sprintf(runBranch, n) != branch {
		return 0, false
	}
	return n, true
}

// save writes the run; it fails with store.ErrClosed when the run was
// cancelled meanwhile, which stops the stage at this checkpoint.
func (s *runJob) save(ctx context.Context) error { return saveOpenRun(ctx, s.e.d.Store, s.run) }

// addUsage adds an agent's tokens and cost to the run.
func (s *runJob) addUsage(ctx context.Context, role llm.Role, sp Spend) error {
	u, cost := sp.Usage, s.e.priced(role, sp)
	r, err := s.e.d.Store.AddUsage(ctx, s.run.ID, int64(u.PromptTokens), int64(u.CompletionTokens), cost)
	if err != nil {
		return err
	}
	s.run.PromptTokens, s.run.CompletionTokens, s.run.Cost = r.PromptTokens, r.CompletionTokens, r.Cost
	if s.e.o.Usage != nil {
		s.e.o.Usage(role, u, cost)
	}
	return nil
}

// step records the current step and updates the progress comment.
func (s *runJob) step(ctx context.Context, stage, step string) error {
	if err := moveRun(s.run, lifecycle.StepAt(stage, step)); err != nil {
		return permanent(err)
	}
	if err := s.save(ctx); err != nil {
		return err
	}
	return s.progress(ctx)
}

// handOver ends the stage by handing the run to stage next; the move is
// saved together with the next job (Engine.apply), and the next stage's
// first step says it. A crash before runs this stage again from its
// checkpoints, never leaves the run at a stage no job will run.
func handOver(next, step string) transition {
	return transition{o: lifecycle.NextStage(next, step)}
}

// wait parks the run at stage until a person acts; step says for what.
func wait(stage, step string) transition { return transition{o: lifecycle.WaitAt(stage, step)} }

// end ends the run in state with reason (a failure's reason with the
// spending limit that stopped it, when one did).
func (s *runJob) end(state, reason string) transition {
	step := ""
	if state == lifecycle.Failed {
		reason = s.limitReason(reason)
	}
	if state == lifecycle.Done {
		step = fmt.Sprintf("pull request #%d is open", s.run.PRNumber)
	}
	return transition{o: lifecycle.EndAs(state, reason, step)}
}

// softStep is step for a report that may fail: the run is saved, and a
// progress comment GitHub refuses is only logged (the next step retries).
func (s *runJob) softStep(ctx context.Context, stage, step string) error {
	if err := moveRun(s.run, lifecycle.StepAt(stage, step)); err != nil {
		return permanent(err)
	}
	if err := s.save(ctx); err != nil {
		return err
	}
	if err := s.progress(ctx); err != nil {
		s.log.Warn("progress comment not updated", "err", err)
	}
	return nil
}

// progress writes the run's one progress comment (found by marker, edited
// in place) and remembers its id.
func (s *runJob) progress(ctx context.Context) error {
	return s.say(ctx, s.progressBody(ctx, s.run))
}

// progressBody is run's progress comment as this job shows it (its items,
// diagnostics, spending notes and session link).
func (s *runJob) progressBody(ctx context.Context, run *Run) string {
	return renderProgress(s.shown(run), s.items, s.diags...) + s.limitNotes() + s.sessionFooter(ctx, run)
}

// decided renders the progress comment of a reported outcome as the run
// will be once t is saved, so its report says what this job knew.
func (s *runJob) decided(ctx context.Context, t transition) transition {
	if !lifecycle.Reported(t.o) {
		return t
	}
	after := *s.run
	if moveRun(&after, t.o) == nil {
		t.body = s.progressBody(ctx, &after)
	}
	return t
}

// say writes body as the run's one progress comment and remembers its id
// (a version-checked save of the run, so a stale copy never undoes it).
func (s *runJob) say(ctx context.Context, body string) error {
	ctx = reserved(ctx) // the run's own state, said even when GitHub's limit is nearly spent
	ic, err := s.gh.UpsertComment(ctx, s.run.Owner, s.run.Repo, s.run.Issue, ghtext.Marker{Kind: kindProgress}, body)
	if err != nil {
		return fmt.Errorf("update progress comment: %w", err)
	}
	if s.run.ProgressCommentID != ic.ID {
		return setProgressComment(ctx, s.e.d.Store, s.run, ic.ID)
	}
	return nil
}

// itemProgress is the code stage's progress: it folds the coder's item
// events into the items' statuses, and the progress comment shows them and
// is edited only when one changes state, so a long coder run makes a
// handful of edits, not one per model call.
func (s *runJob) itemProgress(ctx context.Context) work.Progress {
	return func(ev work.Event) {
		s.itemMu.Lock()
		defer s.itemMu.Unlock()
		items := slices.Clone(s.items)
		if !work.Apply(items, ev) || sameStates(items, s.items) {
			return
		}
		s.items = items
		if err := s.progress(ctx); err != nil {
			s.log.Warn("progress comment not updated", "err", err) // the coder goes on; the next change retries
		}
	}
}

// sameStates reports whether a and b give every item the same status.
func sameStates(a, b []ItemStatus) bool {
	return slices.EqualFunc(a, b, func(x, y ItemStatus) bool { return x.Path == y.Path && x.Status == y.Status })
}

// Marker kinds of the bot's comments.
const (
	kindProgress = "progress"
	kindReply    = "reply"
)

// readSpec reads the spec comment as it is now (people may have edited it).
func (s *runJob) readSpec(ctx context.Context) (*work.Spec, error) {
	body, id, err := s.readComment(ctx, s.run.SpecCommentID, work.KindSpec)
	if err != nil {
		return nil, err
	}
	spec, err := work.ParseSpec(body)
	if err == nil {
		// An edit may leave nothing to plan (every file unticked): that
		// is the person's to fix, not the planner's to fail on.
		err = spec.Validate()
	}
	if err != nil {
		return nil, &editError{kind: "spec", err: err}
	}
	s.run.SpecCommentID, s.run.SpecBody = id, body
	return spec, nil
}

// readPlan reads the plan comment as it is now.
func (s *runJob) readPlan(ctx context.Context) (*work.Plan, work.PlanState, error) {
	body, id, err := s.readComment(ctx, s.run.PlanCommentID, work.KindPlan)
	if err != nil {
		return nil, work.PlanState{}, err
	}
	plan, st, err := work.ParsePlan(body)
	if err == nil {
		err = plan.Validate()
	}
	if err != nil {
		return nil, st, &editError{kind: "plan", err: err}
	}
	s.run.PlanCommentID, s.run.PlanBody = id, body
	return plan, st, nil
}

func (s *runJob) readComment(ctx context.Context, id int64, kind string) (string, int64, error) {
	if id != 0 {
		ic, err := s.gh.GetComment(ctx, s.run.Owner, s.run.Repo, id)
		if err == nil {
			return ic.Body, ic.ID, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return "", 0, err
		}
	}
	ic, _, err := s.gh.FindComment(ctx, s.run.Owner, s.run.Repo, s.run.Issue, ghtext.Marker{Kind: kind})
	if errors.Is(err, ErrNotFound) {
		return "", 0, &missingError{kind: kind}
	}
	if err != nil {
		return "", 0, err
	}
	return ic.Body, ic.ID, nil
}

// editError is an edited comment the bot cannot read: the run waits for a
// fix, and the progress comment says which line is wrong.
type editError struct {
	kind string
	err  error
}

// Error is the reply people see: the line that cannot be read and why.
func (e *editError) Error() string { return work.ErrorReply(e.kind, e.err) }
func (e *editError) Unwrap() error { return e.err }

// missingError is a spec or plan comment that is gone.
type missingError struct{ kind string }

// Error says which comment is gone and how to make a new one.
func (e *missingError) Error() string {
	return fmt.Sprintf("the %s comment is missing; comment /%s to make a new one", e.kind, e.kind)
}

// waitForFix parks the run until people fix the comment named by err.
func waitForFix(stage string, err error) transition { return wait(stage, redact(err.Error())) }

func runID(r *Run) string { return strconv.FormatInt(r.ID, 10) }

// redact removes credentials from text bound for GitHub or logs (the one
// redactor, internal/redact).
func redact(s string) string { return secrets.Text(s) }
