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

// errUndo ends a transaction that found a duplicate: nothing it wrote is
// kept, and the caller answers with the duplicate key.
var errUndo = errors.New("undo: a key is already recorded")

// acceptPostgres records the delivery in its own transaction.
func (q *Queue) acceptPostgres(ctx context.Context, event string, keys []string, args river.JobArgs, opts *river.InsertOpts) (dup string, err error) {
	err = q.InTx(ctx, func(tx *Tx) error {
		if dup, err = acceptOn(ctx, tx, event, keys, args, opts); err == nil && dup != "" {
			return errUndo
		}
		return err
	})
	if errors.Is(err, errUndo) {
		return dup, nil
	}
	return "", err
}

// acceptOn records keys and inserts the delivery's job on tx, the one
// rule of both dialects: the first key already recorded is returned as
// dup, and the caller must then undo what tx wrote.
func acceptOn(ctx context.Context, tx *Tx, event string, keys []string, args river.JobArgs, opts *river.InsertOpts) (string, error) {
	for _, k := range keys {
		n, err := tx.c.exec(ctx, insertDelivery, k, event, tx.unix())
		if err != nil {
			return "", err
		}
		if n == 0 {
			return k, nil
		}
	}
	if _, _, err := tx.Insert(ctx, args, opts); err != nil {
		return "", err
	}
	return "", nil
}
