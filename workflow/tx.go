package workflow

import (
	"context"
	"errors"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/store"
)

// A handler's writes and the completion of the job that carried its event
// (the intake or label job) commit together: a crash after the commit does
// not run the handler again (a second /plan would plan twice), a crash
// before it leaves nothing written and the job runs again.

type jobDoneKey struct{}

// jobDone completes the job a worker runs inside a transaction, once.
type jobDone struct {
	complete func(ctx context.Context, tx *store.Tx) error
	done     bool
}

// withJobDone returns ctx whose commits complete job in their transaction
// (the first one that commits).
func withJobDone[T river.JobArgs](ctx context.Context, job *river.Job[T]) context.Context {
	return context.WithValue(ctx, jobDoneKey{}, &jobDone{complete: func(ctx context.Context, tx *store.Tx) error {
		return store.CompleteJob(ctx, tx, job)
	}})
}

// staleTries bounds how often commit reads the run again when another
// writer saved it first.
const staleTries = 5

// commit runs fn in one transaction, with the completion of ctx's job
// (withJobDone) when it has one. fn reads what it changes inside the
// transaction, so a save that lost a race (store.ErrStale) is simply run
// again on the fresh row.
func (e *Engine) commit(ctx context.Context, fn func(tx *store.Tx) error) error {
	jd, _ := ctx.Value(jobDoneKey{}).(*jobDone)
	for try := 1; ; try++ {
		err := e.queue.InTx(ctx, func(tx *store.Tx) error {
			if err := fn(tx); err != nil {
				return err
			}
			if jd != nil && !jd.done {
				return jd.complete(ctx, tx)
			}
			return nil
		})
		if err == nil {
			if jd != nil {
				jd.done = true
			}
			return nil
		}
		if !errors.Is(err, store.ErrStale) || try == staleTries {
			return err
		}
	}
}

// queueJob inserts one job (with ctx's job completion, see commit).
func (e *Engine) queueJob(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) error {
	return e.commit(ctx, func(tx *store.Tx) error {
		_, _, err := tx.Insert(ctx, args, opts)
		return err
	})
}
