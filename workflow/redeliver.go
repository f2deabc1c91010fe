package workflow

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/store"
)

// RedeliverArgs is the periodic pass that asks GitHub to redeliver the
// webhook deliveries the bot missed (Options.Redeliver). River's leader
// alone enqueues periodic jobs, and the job is unique while it waits or
// runs, so one replica at a time does it.
type RedeliverArgs struct{}

// Kind names the job kind in River.
func (RedeliverArgs) Kind() string { return "issuesmith_redeliver" }

// QueueReconcile is the reconciler's own queue, with its own worker: after
// an outage the default queue holds the backlog of every delivery that did
// get through, and the pass that brings back the ones that did not must
// not wait behind it.
const QueueReconcile = "reconcile"

// InsertOpts: one pass at a time, in its own queue; a failed pass (GitHub
// or the database down) is retried with River's backoff a few times, then
// waits for the next scheduled one.
func (RedeliverArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, Queue: QueueReconcile, UniqueOpts: store.UniqueWhileQueued()}
}

type redeliverWorker struct {
	river.WorkerDefaults[RedeliverArgs]
	e *Engine
}

// Timeout bounds a pass.
func (w *redeliverWorker) Timeout(*river.Job[RedeliverArgs]) time.Duration { return 5 * time.Minute }

// Work runs Options.Redeliver.
func (w *redeliverWorker) Work(ctx context.Context, _ *river.Job[RedeliverArgs]) error {
	if w.e.o.Redeliver == nil {
		return nil
	}
	return w.e.o.Redeliver(ctx)
}

// RedeliverNow queues a reconciliation pass now (the server asks when the
// database is back after deliveries were missed); one already waiting or
// running absorbs it. Nothing happens without Options.Redeliver.
func (e *Engine) RedeliverNow(ctx context.Context) error {
	if e.o.Redeliver == nil {
		return nil
	}
	_, _, err := e.queue.Insert(ctx, RedeliverArgs{}, nil)
	return err
}
