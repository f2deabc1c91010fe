package workflow

import (
	"context"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/store"
)

// A handler's writes and the completion of the job that carried its event
// (the intake or label job) commit together: a crash after the commit does
// not run the handler again (a second /plan would plan twice), a crash
// before it leaves nothing written and the job runs again. The completion
// is handed down explicitly, as the handlers' second argument (nil when
// no job carried the event: Handle called directly).

// completion completes the job that carried a request, once, in the first
// transaction that commits with it.
type completion struct {
	complete func(ctx context.Context, tx *store.Tx) error
	done     bool
}

// completing is job's completion.
func completing[T river.JobArgs](job *river.Job[T]) *completion {
	return &completion{complete: func(ctx context.Context, tx *store.Tx) error {
		return store.CompleteJob(ctx, tx, job)
	}}
}

// staleTries bounds how often a transaction reads the run again when
// another writer saved it first.
const staleTries = 5

// commit runs fn in one transaction with c's completion (when c is not
// nil and has not completed yet), again on store.ErrStale (inTx).
func (e *Engine) commit(ctx context.Context, c *completion, fn func(tx *store.Tx) error) error {
	err := e.inTx(ctx, func(tx *store.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		if c != nil && !c.done {
			return c.complete(ctx, tx)
		}
		return nil
	})
	if err == nil && c != nil {
		c.done = true
	}
	return err
}

// queueJob inserts one job (with c's completion, see commit).
func (e *Engine) queueJob(ctx context.Context, c *completion, args river.JobArgs, opts *river.InsertOpts) error {
	return e.commit(ctx, c, func(tx *store.Tx) error {
		_, _, err := tx.Insert(ctx, args, opts)
		return err
	})
}
