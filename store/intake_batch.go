package store

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/riverqueue/river"
)

// SQLite has one writer, and bot serve one connection to it (Open), shared
// with River's fetching and completing. A transaction per delivery costs
// about 1.2 ms of that connection (measured: BenchmarkAccept, 821
// accepts/s with nothing else to do), so a burst of 1,000/s queued on it
// for seconds. Accept on SQLite therefore commits in groups: concurrent
// deliveries wait in a list, and one flusher records everything waiting in
// one transaction, each delivery in its own savepoint (a repeat or a
// failed insert undoes only that delivery), then answers each.
const (
	// acceptBatchMax bounds one group: its transaction holds the
	// connection while River waits.
	acceptBatchMax = 256
	// acceptBatchTimeout bounds one group's transaction: it is no caller's
	// (a caller may stop waiting, the others may not).
	acceptBatchTimeout = 30 * time.Second
)

// acceptReq is one delivery waiting for its group.
type acceptReq struct {
	ctx   context.Context
	event string
	keys  []string
	args  river.JobArgs
	opts  *river.InsertOpts
	done  chan acceptRes // buffered: the flusher never waits on a caller
}

type acceptRes struct {
	dup string
	err error
}

// acceptGroup is the list of waiting deliveries and whether a flusher
// runs; a flusher runs only while some wait (no goroutine outlives them).
type acceptGroup struct {
	mu       sync.Mutex
	waiting  []*acceptReq
	flushing bool
}

// acceptSQLite queues the delivery for the next group and waits for its
// answer or ctx. A caller that stops waiting may still be recorded (its
// group was already writing): a later Accept of it is then a duplicate.
func (q *Queue) acceptSQLite(ctx context.Context, event string, keys []string, args river.JobArgs, opts *river.InsertOpts) (string, error) {
	r := &acceptReq{ctx: ctx, event: event, keys: keys, args: args, opts: opts, done: make(chan acceptRes, 1)}
	g := &q.group
	g.mu.Lock()
	g.waiting = append(g.waiting, r)
	if !g.flushing {
		g.flushing = true
		go q.flushAccepts()
	}
	g.mu.Unlock()
	select {
	case res := <-r.done:
		return res.dup, res.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// flushAccepts records groups until none waits.
func (q *Queue) flushAccepts() {
	g := &q.group
	for {
		g.mu.Lock()
		n := min(len(g.waiting), acceptBatchMax)
		if n == 0 {
			g.flushing = false
			g.mu.Unlock()
			return
		}
		batch := g.waiting[:n:n]
		g.waiting = g.waiting[n:]
		g.mu.Unlock()
		q.acceptGroup(batch)
	}
}

// acceptGroup records batch in one transaction and answers each request.
func (q *Queue) acceptGroup(batch []*acceptReq) {
	ctx, cancel := context.WithTimeout(context.Background(), acceptBatchTimeout)
	defer cancel()
	res := make([]acceptRes, len(batch))
	err := q.writeGroup(ctx, batch, res)
	for i, r := range batch {
		if err != nil && res[i].err == nil {
			res[i] = acceptRes{err: err}
		}
		r.done <- res[i]
	}
}

// writeGroup writes every live request of batch in one transaction, each
// in a savepoint, filling res; its error (begin, commit) is everyone's.
func (q *Queue) writeGroup(ctx context.Context, batch []*acceptReq, res []acceptRes) error {
	return q.InTx(ctx, func(tx *Tx) error {
		for i, r := range batch {
			if err := r.ctx.Err(); err != nil {
				res[i].err = err // its caller has gone: not recorded
				continue
			}
			if _, err := tx.lite.ExecContext(ctx, "SAVEPOINT accept"); err != nil {
				return err
			}
			res[i].dup, res[i].err = acceptOn(ctx, tx, r.event, r.keys, r.args, r.opts)
			undo := "RELEASE accept"
			if res[i].dup != "" || res[i].err != nil {
				undo = "ROLLBACK TO accept; RELEASE accept"
			}
			if _, err := tx.lite.ExecContext(ctx, undo); err != nil {
				return errors.Join(err, res[i].err)
			}
		}
		return nil
	})
}
