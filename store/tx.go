package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
)

// Tx is one database transaction that can also queue and complete River
// jobs: a stage transition (the run saved, the next job queued, the
// current job completed) either happens whole or not at all. Its run,
// checkpoint and lease methods are the Store's, inside the transaction.
// A Tx is used by one goroutine, only inside the function given to InTx;
// on SQLite nothing else may touch the database meanwhile (one connection).
type Tx struct {
	rw
	q    *Queue
	lite *sql.Tx
	pg   pgxTx
}

// InTx runs fn in one transaction and commits it when fn returns nil;
// otherwise, or when fn panics, nothing fn wrote is kept.
func (q *Queue) InTx(ctx context.Context, fn func(tx *Tx) error) (err error) {
	tx := &Tx{q: q}
	switch {
	case q.pg != nil:
		p, err := q.s.pool.Begin(ctx)
		if err != nil {
			return fmt.Errorf("begin transaction: %w", err)
		}
		defer p.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit it is a no-op
		tx.pg, tx.rw = p, rw{st: q.s, c: pgConn{s: q.s, tx: p}}
	default:
		l, err := q.s.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("begin transaction: %w", err)
		}
		defer l.Rollback() //nolint:errcheck // after Commit it is a no-op
		tx.lite, tx.rw = l, rw{st: q.s, c: sqlConn{s: q.s, db: l}}
	}
	if err := fn(tx); err != nil {
		return err
	}
	if tx.pg != nil {
		err = tx.pg.Commit(ctx)
	} else {
		err = tx.lite.Commit()
	}
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Insert queues a job in the transaction (River's InsertTx): it exists
// only if the transaction commits. skipped is true when a unique job with
// the same key already waits or runs.
func (tx *Tx) Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (id int64, skipped bool, err error) {
	if tx.pg != nil {
		r, err := tx.q.pg.InsertTx(ctx, tx.pg, args, opts)
		if err != nil {
			return 0, false, fmt.Errorf("enqueue %s: %w", args.Kind(), err)
		}
		return r.Job.ID, r.UniqueSkippedAsDuplicate, nil
	}
	r, err := tx.q.lite.InsertTx(ctx, tx.lite, args, opts)
	if err != nil {
		return 0, false, fmt.Errorf("enqueue %s: %w", args.Kind(), err)
	}
	return r.Job.ID, r.UniqueSkippedAsDuplicate, nil
}

// CompleteJob marks job, the one the calling worker runs, completed in the
// transaction (River's JobCompleteTx), so a crash after the commit does not
// run it again. It must be called inside the job's Work.
func CompleteJob[T river.JobArgs](ctx context.Context, tx *Tx, job *river.Job[T]) error {
	var err error
	if tx.pg != nil {
		_, err = river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx.pg, job)
	} else {
		_, err = river.JobCompleteTx[*riversqlite.Driver](ctx, tx.lite, job)
	}
	if err != nil {
		return fmt.Errorf("complete job %d: %w", job.ID, err)
	}
	return nil
}
