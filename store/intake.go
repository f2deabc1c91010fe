package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/riverqueue/river"
)

// Accept records a webhook delivery's keys (its id key and its body key,
// each in its own key space: the caller prefixes them) and inserts its job,
// in one transaction: either every key is recorded and the job queued, or
// nothing is. dup is the first key found already recorded ("" when the
// delivery was accepted); then nothing was written.
func (q *Queue) Accept(ctx context.Context, event string, keys []string, args river.JobArgs, opts *river.InsertOpts) (dup string, err error) {
	if len(keys) == 0 {
		return "", errors.New("accept delivery: no keys")
	}
	for _, k := range keys {
		if k == "" {
			return "", errors.New("accept delivery: empty key")
		}
	}
	if q.pg != nil {
		dup, err = q.acceptPostgres(ctx, event, keys, args, opts)
	} else {
		dup, err = q.acceptSQLite(ctx, event, keys, args, opts)
	}
	if err != nil {
		return "", fmt.Errorf("accept delivery %s: %w", keys[0], err)
	}
	return dup, nil
}

const insertDelivery = `INSERT INTO deliveries (id, event, received_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING`

func (q *Queue) acceptPostgres(ctx context.Context, event string, keys []string, args river.JobArgs, opts *river.InsertOpts) (string, error) {
	tx, err := q.s.pool.Begin(ctx)
	if err != nil {
		return "", err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit it is a no-op
	for _, k := range keys {
		tag, err := tx.Exec(ctx, q.s.rebind(insertDelivery), k, event, q.s.unix())
		if err != nil {
			return "", err
		}
		if tag.RowsAffected() == 0 {
			return k, nil
		}
	}
	if _, err := q.pg.InsertTx(ctx, tx, args, opts); err != nil {
		return "", err
	}
	return "", tx.Commit(ctx)
}
