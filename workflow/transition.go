package workflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

// A run moves in three steps: a stage (or a person's request) decides an
// Outcome (lifecycle), one transaction saves it (apply: the version-checked
// run, the job it queues, the completion of the job that decided it and
// the issue's lease), and only then is it said on GitHub — a wait or an
// end by the run's report job, queued in that same transaction, so a crash
// after the save still says it.

// transition is a decided outcome with what saving it needs.
type transition struct {
	o lifecycle.Outcome
	// body is the progress comment a reported outcome says, rendered by
	// the stage that decided it (its items and notes); "" renders it
	// from the saved run.
	body string
	// keepLabel: the report leaves the trigger label (the outcome was the
	// label's removal, or a pull request's end, after the label was reset).
	keepLabel bool
	// silent: nothing is said on GitHub (the App has no access any more).
	silent bool
}

// stay is the outcome of a job that moves nothing.
var stay = transition{o: lifecycle.Outcome{Kind: lifecycle.Stay}}

// moveRun is the one place a run's stage and state change: r after o, as
// lifecycle.Transition decides, or an error that leaves r as it was.
func moveRun(r *Run, o lifecycle.Outcome) error {
	st, err := lifecycle.Transition(r.Status, o)
	if err != nil {
		return err
	}
	st.Reason = redact(st.Reason)
	r.Status = st
	return nil
}

// applyTx saves t for run in tx and queues what it asks for: the next
// stage, a new request's stage, or the report that says a wait or an end.
// gen is the request generation a next stage carries on.
func (e *Engine) applyTx(ctx context.Context, tx *store.Tx, run *Run, t transition, gen int64) error {
	o := t.o
	if o.Kind == lifecycle.Stay {
		return nil
	}
	if err := moveRun(run, o); err != nil {
		return permanent(err)
	}
	save := saveOpenRun
	if o.Kind == lifecycle.Merged || o.Kind == lifecycle.Closed {
		save = saveRun // the run had ended: its pull request's end is news still
	}
	if err := save(ctx, tx, run); err != nil {
		return err
	}
	switch {
	case o.Kind == lifecycle.Start:
		g, err := tx.NextGeneration(ctx, run.ID)
		if err != nil {
			return err
		}
		return e.insertTx(ctx, tx, run, StageArgs{Stage: o.Stage, Gen: g})
	case o.Kind == lifecycle.Next:
		return e.insertTx(ctx, tx, run, StageArgs{Stage: o.Stage, Gen: gen})
	case lifecycle.Reported(o) && !t.silent:
		// Unique per saved version: a later wait or end is reported too.
		return e.insertTx(ctx, tx, run, StageArgs{Stage: StageReport, Gen: run.version, Body: t.body,
			KeepLabel: t.keepLabel || o.Kind != lifecycle.End})
	}
	return nil
}

// apply saves the outcome of stage job job for run in one transaction with
// the issue's lease given back and the job completed: a crash before it
// runs the stage again from its checkpoints, a crash after it finds the
// run moved on and only what was queued runs.
func (e *Engine) apply(ctx context.Context, job *river.Job[StageArgs], run *Run, holder string, t transition) error {
	return e.queue.InTx(ctx, func(tx *store.Tx) error {
		if err := e.applyTx(ctx, tx, run, t, job.Args.Gen); err != nil {
			return err
		}
		if holder != "" {
			if err := tx.ReleaseLease(ctx, run.IssueKey.row(), holder); err != nil {
				return err
			}
		}
		return store.CompleteJob(ctx, tx, job)
	})
}

// report says a run's saved wait or end on GitHub: the progress comment
// the deciding stage rendered (or, when the run moved since or an older
// release queued the job, the saved run's) and, for an end, the trigger
// label reset unless a.KeepLabel. When a newer run of the issue exists,
// or the run opened again, it says nothing: the comment and label are
// theirs.
func (e *Engine) report(ctx context.Context, run *Run, a StageArgs) error {
	if latest, err := latestRun(ctx, e.d.Store, run.IssueKey); err != nil {
		return err
	} else if latest.ID != run.ID {
		return nil
	}
	moved := a.Gen != run.version
	if moved && run.Open() && run.State != lifecycle.Waiting {
		return nil // working again: its stage says its own
	}
	if !run.Open() {
		e.endSession(ctx, run.ID, run.State)
	}
	s, err := e.newRunJob(ctx, e.log, run, fmt.Sprintf("run%d-report", run.ID))
	if err != nil {
		return err
	}
	if a.Body == "" || moved {
		err = s.progress(ctx)
	} else {
		err = s.say(ctx, a.Body)
	}
	if err != nil {
		return err
	}
	if a.KeepLabel || run.Open() {
		return nil
	}
	return s.resetLabel(ctx)
}

// fail ends run after stage failed for good: the failure saved, with the
// report that says why queued, in one transaction with done (the failed
// job's completion and lease, nil for none). A revise round's failure was
// answered in its thread; a run that ended meanwhile stays as it is.
func (e *Engine) fail(ctx context.Context, run *Run, stage string, cause error, done func(context.Context, *store.Tx) error) error {
	why := cause.Error()
	var perm errPermanent
	if !errors.As(cause, &perm) {
		what := "the " + stage + " stage"
		if stage == StageReport {
			what = "telling GitHub where the run stands"
		}
		why = fmt.Sprintf("%s kept failing: %s. Comment `/retry` to try again.", what, why)
	}
	return e.inTx(ctx, func(tx *store.Tx) error {
		fresh, err := getRun(ctx, tx, run.ID)
		if err != nil {
			return err
		}
		if stage != StageRevise && stage != StageMention && fresh.Open() {
			if err := e.applyTx(ctx, tx, fresh, transition{o: lifecycle.EndAs(lifecycle.Failed, why, "")}, 0); err != nil {
				return err
			}
		}
		if done != nil {
			return done(ctx, tx)
		}
		return nil
	})
}

// inTx runs fn in one transaction, again on store.ErrStale (fn reads what
// it changes inside the transaction, so a save that lost a race is simply
// made again on the fresh row).
func (e *Engine) inTx(ctx context.Context, fn func(tx *store.Tx) error) error {
	for try := 1; ; try++ {
		err := e.queue.InTx(ctx, fn)
		if err == nil || !errors.Is(err, store.ErrStale) || try == staleTries {
			return err
		}
	}
}
