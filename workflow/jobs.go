package workflow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

// Stages of a run, in order (package lifecycle decides their order and
// what moves a run between them). StageApproval is a wait, not a job;
// StageReport is the job that says a saved wait or end on GitHub.
const (
	StageExplore  = lifecycle.Explore
	StagePlan     = lifecycle.Plan
	StageApproval = lifecycle.Approval
	StageCode     = lifecycle.Code
	StagePR       = lifecycle.PR
	StageRevise   = lifecycle.Revise
	StageMention  = lifecycle.Mention
	StageCI       = lifecycle.CI
	StageReport   = lifecycle.Report
)

// StageArgs is the one job kind: a stage of a run. Jobs are unique per run,
// stage, request generation and (for revise) review comment while queued or
// running: a repeated enqueue of the same request is one job, while a new
// request (/plan again) is not merged into a job of the previous one that
// River still records as running.
type StageArgs struct {
	RunID     int64  `json:"run_id" river:"unique"`
	Stage     string `json:"stage" river:"unique"`
	Gen       int64  `json:"gen,omitempty" river:"unique"`
	CommentID int64  `json:"comment_id,omitempty" river:"unique"`
	// Source says what CommentID names for a revise: "" a review comment
	// on a diff line, SourceComment a PR conversation comment,
	// SourceReview a submitted review.
	Source string `json:"source,omitempty" river:"unique"`
	// Author and Body are the conversation comment's or review's writer
	// and text (a review's body cannot be fetched by id alone).
	Author string `json:"author,omitempty"`
	Body   string `json:"body,omitempty"`
	// ReadLines asks the revise of a submitted review to read the
	// review's line comments from the forge (ReviewLines): its delivery
	// named none (Gitea).
	ReadLines bool `json:"read_lines,omitempty"`
	// Head is the commit a CI job looks at (StageCI; "" for /retry: the
	// pull request's head when the job runs). Jobs are unique per head.
	Head string `json:"head,omitempty" river:"unique"`
	// KeepLabel tells a report job not to remove the trigger label: the
	// end was the label's removal, and a person may have put it back.
	KeepLabel bool   `json:"keep_label,omitempty"`
	Issue     string `json:"issue"` // owner/repo#n, for people reading the queue
}

// Sources of a revise request (StageArgs.Source).
const (
	SourceComment = "comment"
	SourceReview  = "review"
)

// Kind names the job kind in River.
func (StageArgs) Kind() string { return "issuesmith_stage" }

// InsertOpts makes stage jobs unique while they wait or run (a finished
// stage may run again, e.g. /plan after a plan) and retries them a few times.
func (StageArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		MaxAttempts: 3,
		UniqueOpts:  store.UniqueWhileQueued(),
	}
}

// reportAttempts is how many times a run's final report is tried.
const reportAttempts = 10

// insert enqueues args (RunID and Issue filled from run), completing ctx's
// job in the same transaction (commit).
func (e *Engine) insert(ctx context.Context, c *completion, run *Run, args StageArgs) error {
	return e.commit(ctx, c, func(tx *store.Tx) error { return e.insertTx(ctx, tx, run, args) })
}

// insertTx enqueues args in tx (RunID and Issue filled from run).
func (e *Engine) insertTx(ctx context.Context, tx *store.Tx, run *Run, args StageArgs) error {
	args.RunID, args.Issue = run.ID, run.IssueKey.String()
	stage := args.Stage
	var opts *river.InsertOpts
	if stage == StageReport {
		// The last word on a run: worth waiting out a GitHub outage for
		// (River's backoff over ten tries spans hours).
		opts = &river.InsertOpts{MaxAttempts: reportAttempts}
	}
	id, skipped, err := tx.Insert(ctx, args, opts)
	if err != nil {
		return err
	}
	e.log.Info("enqueued", "run", run.ID, "issue", args.Issue, "stage", stage, "job", id, "duplicate", skipped)
	return nil
}

type worker struct {
	river.WorkerDefaults[StageArgs]
	e *Engine
}

// errPermanent marks a failure that retrying cannot fix (the model keeps
// failing, the plan is unreadable): the run ends with a comment at once.
type errPermanent struct{ err error }

// Error and Unwrap make errPermanent a transparent wrapper.
func (p errPermanent) Error() string { return p.err.Error() }
func (p errPermanent) Unwrap() error { return p.err }

func permanent(err error) error { return errPermanent{err} }

// Work runs one stage under the issue's lease. It recovers panics at this
// boundary, turns permanent failures and a last failed attempt into an ended
// run with a comment, and lets River retry the rest.
func (w *worker) Work(ctx context.Context, job *river.Job[StageArgs]) (err error) {
	e, a := w.e, job.Args
	log := e.log.With("run", a.RunID, "issue", a.Issue, "stage", a.Stage, "job", job.ID, "attempt", job.Attempt)
	var run *Run
	defer func() {
		if p := recover(); p != nil {
			log.Error("stage panicked", "panic", p)
			err = permanent(fmt.Errorf("internal error: %v", p))
			if run != nil {
				// A panic repeats on a retry: end the run with a comment
				// now (River knows nothing of permanent errors and would
				// retry, then drop the job and leave the run open).
				err = e.settle(context.WithoutCancel(ctx), log, run, job, err, nil)
			}
		}
	}()
	run, err = getRun(ctx, e.d.Store, a.RunID)
	if errors.Is(err, store.ErrNotFound) {
		log.Warn("job for an unknown run dropped")
		return nil
	}
	if err != nil {
		return err
	}
	// The engine's own timeout: River has none, so that its rescuer can
	// take over a dead replica's job long before a job may end.
	ctx, cancelTimeout := context.WithTimeout(ctx, e.o.JobTimeout)
	defer cancelTimeout()
	if a.Stage == StageRevise {
		if waiting, err := e.earlierReviewPending(ctx, run, job.ID); err != nil || waiting {
			if err == nil {
				e.observe(a.Stage, "snoozed")
				err = river.JobSnooze(e.o.LeaseWait) // the earlier request goes first
			}
			return err
		}
	}
	holder := leaseHolder(job.ID, job.Attempt)
	ok, err := e.d.Store.AcquireLease(ctx, run.IssueKey.row(), holder, e.o.LeaseTTL)
	if err != nil {
		return err
	}
	if !ok {
		e.observe(a.Stage, "snoozed")
		return river.JobSnooze(e.o.LeaseWait)
	}
	released := false
	// done gives the lease back and completes the job, in the transaction
	// that saves what the job decided.
	done := func(ctx context.Context, tx *store.Tx) error {
		if err := tx.ReleaseLease(ctx, run.IssueKey.row(), holder); err != nil {
			return err
		}
		return store.CompleteJob(ctx, tx, job)
	}
	release := func() {
		if released {
			return
		}
		released = true
		// The lease is ours: give it back even when ctx is done.
		if rerr := e.d.Store.ReleaseLease(context.WithoutCancel(ctx), run.IssueKey.row(), holder); rerr != nil {
			log.Warn("release lease", "err", rerr)
		}
	}
	defer release()
	// A run already cancelled (its PR closed) cannot be cancelled again.
	sctx, unwatch := e.watchRun(ctx, run, holder, a.Stage != StageReport && run.State != lifecycle.Cancelled)
	t, err := e.runStage(sctx, log, run, a, job)
	if err != nil && errors.Is(context.Cause(sctx), errRunEnded) {
		err = fmt.Errorf("%w: %w", store.ErrClosed, err) // /stop, unlabel or close during the stage
	}
	if err != nil && errors.Is(context.Cause(sctx), errLeaseLost) {
		log.Warn("the issue's lease was taken over; the stage stopped and runs again later", "err", err)
		err = river.JobSnooze(e.o.LeaseWait)
	}
	unwatch()
	if err == nil {
		// What the stage decided is saved in one transaction (apply): the
		// run moved, what it queues, the issue's lease given back (so the
		// next job starts at once) and this job completed.
		err = e.apply(ctx, job, run, holder, t)
		if err == nil {
			released = true
		}
	}
	return e.settle(ctx, log, run, job, err, done)
}

// settle decides what an error from a stage means for the run and the job;
// a failure that ends the run is saved with done (the lease and the job's
// completion).
func (e *Engine) settle(ctx context.Context, log *slog.Logger, run *Run, job *river.Job[StageArgs], err error, done func(context.Context, *store.Tx) error) error {
	stage := job.Args.Stage
	switch {
	case err == nil:
		e.observe(stage, "ok")
		return nil
	case errors.Is(err, store.ErrClosed):
		log.Info("run ended meanwhile; stage stopped at a checkpoint")
		e.observe(stage, "cancelled")
		return nil
	case errors.Is(err, store.ErrStale):
		// A request steered the run meanwhile (/plan, /implement, an
		// edited issue): its own job carries on from the checkpoints.
		log.Info("run changed meanwhile; stage stopped at a checkpoint", "err", err)
		e.observe(stage, "cancelled")
		return nil
	case errors.As(err, new(*rivertype.JobSnoozeError)):
		e.observe(stage, "snoozed")
		return err
	case errors.Is(ctx.Err(), context.Canceled):
		// Shutdown: the job is available again at once for the next start
		// (a snooze does not use up an attempt); it resumes from its
		// checkpoints.
		e.observe(stage, "retry")
		return river.JobSnooze(0)
	case ctx.Err() != nil && job.Attempt < job.MaxAttempts:
		// The job timed out: River retries it later, a few times.
		e.observe(stage, "retry")
		return err
	case ctx.Err() != nil:
		// Out of time on the last try: the run ends with a comment, or
		// River would discard the job and leave the run open for good.
		err = permanent(fmt.Errorf("the %s stage did not finish within %s on any of %d tries (%v). Comment `/retry` to try again",
			stage, e.o.JobTimeout, job.MaxAttempts, err))
	}
	if wait, ok := rateLimited(err); ok {
		return e.sayLimited(ctx, log, run, stage, wait, err)
	}
	var perm errPermanent
	if !errors.As(err, &perm) && job.Attempt < job.MaxAttempts {
		log.Warn("stage failed; will retry", "err", err)
		e.observe(stage, "retry")
		return err
	}
	log.Error("stage failed; ending the run", "err", err)
	if ferr := e.fail(context.WithoutCancel(ctx), run, stage, err, done); ferr != nil {
		e.observe(stage, "failed")
		return fmt.Errorf("%w (and reporting it: %v)", err, ferr)
	}
	e.observe(stage, "failed") // after the save: who watches sees the run ended
	return nil
}

// runStage runs stage a of run and returns what it decided.
func (e *Engine) runStage(ctx context.Context, log *slog.Logger, run *Run, a StageArgs, job *river.Job[StageArgs]) (t transition, err error) {
	jobID := job.ID
	if a.Stage == StageReport {
		return stay, e.report(ctx, run, a)
	}
	if a.Stage == StageRevise || a.Stage == StageMention || a.Stage == StageCI {
		if run.State == lifecycle.Cancelled && run.PRNumber == 0 {
			return stay, nil
		}
		// A run cancelled because its PR was closed unmerged: the
		// revise answers that the PR is closed (prEnded) and changes
		// nothing.
	} else if !run.Open() {
		log.Info("run already ended; nothing to do")
		return stay, nil
	} else if lifecycle.Index(run.Stage) > lifecycle.Index(a.Stage) && !(a.Stage == StageCode && run.Stage == StagePR) {
		// (The code job itself moves the run to StagePR and opens the PR:
		// a code job resumed after a crash there finishes that work; its
		// checkpoints skip what was done.)
		// A duplicate of an earlier stage (a request queued twice): the
		// run's own report says where it is.
		log.Info("run is past this stage; nothing to do", "run_stage", run.Stage)
		return stay, nil
	}
	if e.o.Preflight != nil && a.Stage != StagePlan && a.Stage != StageMention {
		if err := e.o.Preflight(ctx); err != nil {
			return stay, permanent(err)
		}
	}
	if !saidUntil(run.Step).IsZero() {
		run.Step = "" // the rate limit's wait is over: the stage says its own
	}
	s, err := e.newRunJob(ctx, log, run, fmt.Sprintf("run%d-%s-job%d", run.ID, a.Stage, jobID))
	if err != nil {
		return stay, err
	}
	if err := s.loadConfig(ctx); err != nil {
		return stay, err
	}
	ctx = s.record(ctx, sessionStage(a.Stage), stepKey(a))
	defer func() { s.recordEnd(ctx, t, err) }()
	if ctx, err = s.meter(ctx, a.Stage); err != nil {
		return stay, err
	}
	t = stay
	switch a.Stage {
	case StageExplore:
		t, err = s.explore(ctx)
	case StagePlan:
		t, err = s.plan(ctx)
	case StageCode:
		t, err = s.code(ctx)
	case StageRevise:
		err = s.revise(ctx, a)
	case StageMention:
		err = s.answerMention(ctx)
	case StageCI:
		err = s.ci(ctx, a, job.CreatedAt)
	default:
		err = permanent(fmt.Errorf("unknown stage %q", a.Stage))
	}
	if a.Stage == StageExplore || a.Stage == StagePlan || a.Stage == StageCode {
		t, err = s.limited(t, err)
	}
	if err != nil {
		return stay, err
	}
	return s.decided(ctx, t), nil
}
