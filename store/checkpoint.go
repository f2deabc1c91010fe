package store

import (
	"context"
	"database/sql"
	"time"
)

// SQLite in WAL mode copies the log back into the database file
// (checkpoints) by default in the commit that passes 1,000 pages, with two
// fsyncs, on the one connection every write of bot serve waits for. On a
// disk where an fsync takes milliseconds (4 ms here, far more while other
// processes write), a burst of deliveries committed in groups of 256 waited
// 1-7 s behind them. So the store's connection never checkpoints
// (wal_autocheckpoint 0) and a checkpointer of its own, on a second
// connection, runs PASSIVE checkpoints in the background: they copy what
// is committed without taking the write lock, so writers go on meanwhile.
// The last connection to close checkpoints what is left and removes the
// log, as before.

// checkpointEvery is how often the checkpointer offers a checkpoint.
const checkpointEvery = 200 * time.Millisecond

// checkpointer runs passive checkpoints until stopped.
type checkpointer struct {
	db   *sql.DB
	stop context.CancelFunc
	done chan struct{}
}

// startCheckpointer opens dsn's second connection and starts checkpointing.
func startCheckpointer(dsn string) (*checkpointer, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	ctx, stop := context.WithCancel(context.Background())
	c := &checkpointer{db: db, stop: stop, done: make(chan struct{})}
	go c.run(ctx)
	return c, nil
}

func (c *checkpointer) run(ctx context.Context) {
	defer close(c.done)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// Busy (another process checkpoints) or failed: the next tick
		// tries again; the log only grows meanwhile.
		_, _ = c.db.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
	}
}

// close stops the checkpointer and closes its connection.
func (c *checkpointer) close() error {
	if c == nil {
		return nil
	}
	c.stop()
	<-c.done
	return c.db.Close()
}
