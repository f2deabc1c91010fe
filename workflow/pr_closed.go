package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

// prClosed ends the story of the bot's pull request. Merged: the run is
// done and its progress comment says who merged it. Closed without merge:
// the run is cancelled (reviews on the PR change nothing any more) and the
// progress comment says why and that `/retry` starts again.
func (e *Engine) prClosed(ctx context.Context, c *completion, ev Event) error {
	return e.commit(ctx, c, func(tx *store.Tx) error { return e.prClosedTx(ctx, tx, ev) })
}

func (e *Engine) prClosedTx(ctx context.Context, tx *store.Tx, ev Event) error {
	run, err := runByPR(ctx, tx, ev.Owner, ev.Repo, ev.Number)
	if errors.Is(err, store.ErrNotFound) {
		return ErrIgnored // not the bot's pull request
	}
	if err != nil {
		return err
	}
	if run.Open() {
		// A run that reopened (it is coding again) decides for itself
		// when it reaches the PR.
		return ErrIgnored
	}
	if ev.Merged { // also after a close, a reopen and then the merge
		// #N links it; no @: no ping
		return e.applyTx(ctx, tx, run, transition{o: lifecycle.MergedPR(
			fmt.Sprintf("pull request #%d was merged by %s", run.PRNumber, ev.Sender))}, 0)
	}
	if run.State == lifecycle.Cancelled {
		return ErrIgnored // closed before (a redelivery, or closed again after a reopen)
	}
	// The label was reset when the PR opened: a label put back since
	// belongs to a newer run, which the report leaves alone.
	return e.applyTx(ctx, tx, run, transition{o: lifecycle.ClosedPR(fmt.Sprintf(
		"pull request #%d was closed without merging by @%s, so I will not change it any more. "+
			"Comment `/retry` to write the change again.", run.PRNumber, ev.Sender)), keepLabel: true}, 0)
}

// issueEdited explores again when the issue's run waits for answers to
// the spec's open questions: the edit is most likely the answer. Other
// edits change nothing (the spec and plan comments are what runs read).
func (e *Engine) issueEdited(ctx context.Context, c *completion, ev Event) error {
	run, err := openRunFor(ctx, e.d.Store, ev.key())
	if errors.Is(err, store.ErrNotFound) {
		return ErrIgnored
	}
	if err != nil {
		return err
	}
	if run.State != lifecycle.Waiting || run.Stage != StageExplore {
		return ErrIgnored
	}
	return e.startRun(ctx, c, ev, StageExplore, true)
}

// ProgressArgs is the job that rewrites a run's progress comment from the
// run as stored. Only older releases queued it (after a merge, which the
// run's report job now says); it is still read and done.
type ProgressArgs struct {
	RunID int64 `json:"run_id"`
}

// Kind names the job kind in River.
func (ProgressArgs) Kind() string { return "issuesmith_progress" }

// InsertOpts: retried through a GitHub outage, like a cancel report.
func (ProgressArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: reportAttempts}
}

type progressWorker struct {
	river.WorkerDefaults[ProgressArgs]
	e *Engine
}

// Timeout bounds one comment update.
func (w *progressWorker) Timeout(*river.Job[ProgressArgs]) time.Duration { return 5 * time.Minute }

// Work writes the progress comment, unless a newer run of the issue owns
// it by now.
func (w *progressWorker) Work(ctx context.Context, job *river.Job[ProgressArgs]) error {
	e := w.e
	run, err := getRun(ctx, e.d.Store, job.Args.RunID)
	if err != nil {
		return err
	}
	if latest, err := latestRun(ctx, e.d.Store, run.IssueKey); err != nil {
		return err
	} else if latest.ID != run.ID {
		return nil
	}
	s, err := e.newRunJob(ctx, e.log, run, fmt.Sprintf("run%d-progress-job%d", run.ID, job.ID))
	if err != nil {
		return err
	}
	return s.progress(ctx)
}
