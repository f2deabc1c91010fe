package workflow

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/work"
	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

// Handle records what ev asks for and enqueues the job; it never runs agent
// work and returns within a few database round trips. It returns ErrIgnored
// for events that need nothing. *Engine is the webhook's consumer: this is
// the one door from a delivery into the workflow.
func (e *Engine) Handle(ctx context.Context, ev Event) error { return e.handle(ctx, nil, ev) }

// handle is Handle with the completion of the job that carried ev (the
// intake job), saved with the first transaction ev's handler commits.
func (e *Engine) handle(ctx context.Context, c *completion, ev Event) error {
	if err := e.boundElsewhere(ctx, ev); err != nil {
		return err
	}
	if ev.CheckWrite {
		if err := e.checkWrite(ctx, ev); err != nil {
			return err
		}
	}
	switch ev.Kind {
	case Labeled:
		// Which label starts a run is the repository's setting: a job
		// reads it (no GitHub call here).
		return e.labeled(ctx, c, ev)
	case Unlabeled:
		return e.unlabeled(ctx, c, ev)
	case LabelsSet:
		return e.labelsSet(ctx, c, ev)
	case Closed:
		return e.cancel(ctx, c, ev.key(), fmt.Sprintf("the issue was closed by @%s", ev.Sender), false)
	case CommandGiven:
		return e.command(ctx, c, ev)
	case CommentEdited:
		return e.commentEdited(ctx, c, ev)
	case ReviewComment:
		return e.reviewComment(ctx, c, ev)
	case Mention:
		return e.conversation(ctx, c, ev, SourceComment)
	case ReviewSubmitted:
		return e.conversation(ctx, c, ev, SourceReview)
	case Pushed:
		return e.pushed(ctx, c, ev)
	case PRClosed:
		return e.prClosed(ctx, c, ev)
	case CIFinished:
		return e.ciFinished(ctx, c, ev)
	case IssueEdited:
		return e.issueEdited(ctx, c, ev)
	case Installation:
		if ev.Action != "deleted" {
			return ErrIgnored // installed, suspended, unsuspended: nothing to end
		}
		return e.uninstalled(ctx, c, ev.InstallationID, nil)
	case Repositories:
		if ev.Action != "removed" || len(ev.Removed) == 0 {
			return ErrIgnored
		}
		return e.uninstalled(ctx, c, ev.InstallationID, ev.Removed)
	}
	return ErrIgnored
}

func (e *Engine) command(ctx context.Context, c *completion, ev Event) error {
	cmd := ev.Command
	if cmd == "" {
		var ok bool
		if cmd, ev.Args, ok = ParseCommand(ev.Body); !ok {
			return ErrIgnored
		}
	}
	if ev.IsPR && cmd == CmdRetry {
		// /retry on the bot's pull request: one more CI fix round.
		if run, err := runByPR(ctx, e.d.Store, ev.Owner, ev.Repo, ev.Number); err == nil {
			return e.insert(ctx, c, run, StageArgs{Stage: StageCI, CommentID: ev.CommentID, Author: ev.Sender})
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	switch cmd {
	case CmdStop:
		return e.stop(ctx, c, ev)
	case CmdSpec:
		return e.startRun(ctx, c, ev, StageExplore, true)
	case CmdPlan:
		return e.startRun(ctx, c, ev, StagePlan, true)
	case CmdImplement:
		return e.startRun(ctx, c, ev, StageCode, true)
	default: // CmdRetry: carry on from where the last run stopped
		stage := StageExplore
		if last, err := latestRun(ctx, e.d.Store, ev.key()); err == nil {
			stage = lifecycle.Retry(last.Stage, last.SpecCommentID != 0, last.PlanCommentID != 0)
		}
		return e.startRun(ctx, c, ev, stage, true)
	}
}

func (e *Engine) commentEdited(ctx context.Context, c *completion, ev Event) error {
	run, err := openRunFor(ctx, e.d.Store, ev.key())
	if errors.Is(err, store.ErrNotFound) {
		// After a failed run, ticking Approve again (untick, tick) is a
		// new approval of the plan as it now stands: a new run codes it.
		// A cancelled run was stopped on purpose, a done one has its PR.
		run, err = latestRun(ctx, e.d.Store, ev.key())
		if errors.Is(err, store.ErrNotFound) || err == nil && run.State != lifecycle.Failed {
			return ErrIgnored
		}
	}
	if err != nil {
		return err
	}
	if ev.CommentID == 0 || ev.CommentID != run.PlanCommentID {
		// An edited spec is read back when the next stage runs.
		return ErrIgnored
	}
	// A ticked box is an approval even when the edit broke the plan: the
	// code stage reads the plan, finds the broken line and says which (an
	// approval ignored here would be lost without a word). An unticked
	// box asks nothing.
	_, st, _ := work.ParsePlan(ev.Body)
	if !run.Open() {
		// The failed run's box stays ticked, so any later edit arrives
		// ticked: only a tick after an untick is a new approval. The
		// untick is remembered in the ended run's plan body.
		_, was, _ := work.ParsePlan(run.PlanBody)
		if !st.Approved && was.Approved {
			run.PlanBody = ev.Body
			if err := saveRun(ctx, e.d.Store, run); err != nil {
				return err
			}
		}
		if !st.Approved || was.Approved {
			return ErrIgnored
		}
	}
	if !st.Approved {
		return ErrIgnored
	}
	return e.startRun(ctx, c, ev, StageCode, true)
}

func (e *Engine) reviewComment(ctx context.Context, c *completion, ev Event) error {
	if !e.mentioned(ev.Body) {
		return ErrIgnored
	}
	run, err := runByPR(ctx, e.d.Store, ev.Owner, ev.Repo, ev.Number)
	if errors.Is(err, store.ErrNotFound) {
		return ErrIgnored // not the bot's pull request
	}
	if err != nil {
		return err
	}
	return e.insertGuarded(ctx, c, run, loopRevise, StageArgs{Stage: StageRevise, CommentID: ev.CommentID})
}

// conversation turns a PR conversation comment or a submitted review that
// mentions the bot into a revise of the whole pull request: there is no
// file or line, so the coder gets the PR's changed files and the text.
func (e *Engine) conversation(ctx context.Context, c *completion, ev Event, source string) error {
	if !e.mentioned(ev.Body) && !ev.ReadLines || ev.CommentID == 0 {
		return ErrIgnored
	}
	run, err := runByPR(ctx, e.d.Store, ev.Owner, ev.Repo, ev.Number)
	if errors.Is(err, store.ErrNotFound) {
		return ErrIgnored // not the bot's pull request
	}
	if err != nil {
		return err
	}
	return e.insertGuarded(ctx, c, run, loopRevise, StageArgs{Stage: StageRevise, CommentID: ev.CommentID, Source: source,
		Author: ev.Sender, Body: ev.Body, ReadLines: ev.ReadLines})
}

// mentioned reports whether body mentions the bot (Mentions).
func (e *Engine) mentioned(body string) bool {
	return slices.ContainsFunc(e.botLogins(), func(login string) bool { return Mentions(body, login) })
}

// startRun opens the issue's run (reusing the open one, or carrying the
// comment ids of the last one), moves it to stage and enqueues that stage,
// all in one transaction (with the completion of the job that carried the
// event). Without steer (a label), an open run is left alone: it is
// already going.
func (e *Engine) startRun(ctx context.Context, c *completion, ev Event, stage string, steer bool) error {
	return e.commit(ctx, c, func(tx *store.Tx) error {
		if err := e.loopGuard(ctx, tx, ev.key(), loopRun); err != nil {
			return err
		}
		run, created, err := openRun(ctx, tx, ev.key(), ev.InstallationID, ev.Sender)
		if err != nil {
			return err
		}
		if !created && !steer {
			return ErrIgnored
		}
		if created {
			if err := inherit(ctx, tx, run); err != nil {
				return err
			}
		}
		if stage == StageExplore && !created {
			// /spec on a live run: do the spec again from scratch.
			if err := tx.ForgetSteps(ctx, run.ID, ""); err != nil {
				return err
			}
		}
		if created && ev.Kind == Labeled {
			run.TriggerLabel = ev.Label
		}
		if ev.InstallationID != 0 {
			// The App may have been uninstalled and installed again since
			// the run began: work on with the installation that sent this.
			run.InstallationID = ev.InstallationID
		}
		// Jobs of earlier stages still queued (or resumed after a crash)
		// see the run past them and do nothing; a job still running finds
		// its next save stale and stops.
		return e.applyTx(ctx, tx, run, transition{o: lifecycle.StartAt(stage)}, 0)
	})
}

// inherit copies the comment ids of the issue's previous run into run, so
// a new run edits the same spec, plan and progress comments.
func inherit(ctx context.Context, tx *store.Tx, run *Run) error {
	// LatestRun is run itself; look at the previous one by id order.
	prev, err := previousRun(ctx, tx, run.IssueKey, run.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	run.ProgressCommentID, run.SpecCommentID, run.PlanCommentID = prev.ProgressCommentID, prev.SpecCommentID, prev.PlanCommentID
	if run.TriggerLabel == "" {
		run.TriggerLabel = prev.TriggerLabel // /retry keeps the label to reset
	}
	run.SpecBody, run.PlanBody = prev.SpecBody, prev.PlanBody
	return nil
}

// cancel ends the issue's open run and queues its final report in one
// transaction; a running job stops at its next checkpoint. keepLabel
// leaves the trigger label alone (the cancel is its removal).
func (e *Engine) cancel(ctx context.Context, c *completion, key IssueKey, why string, keepLabel bool) error {
	return e.commit(ctx, c, func(tx *store.Tx) error {
		run, err := openRunFor(ctx, tx, key)
		if errors.Is(err, store.ErrNotFound) {
			return ErrIgnored
		}
		if err != nil {
			return err
		}
		// Jobs of a closed run do nothing, except the report that says it.
		return e.applyTx(ctx, tx, run, transition{o: lifecycle.EndAs(lifecycle.Cancelled, why, ""), keepLabel: keepLabel}, 0)
	})
}
