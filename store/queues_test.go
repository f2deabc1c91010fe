package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

type holdArgs struct {
	N int `json:"n"`
}

func (holdArgs) Kind() string { return "test_hold" }

// holdWorker keeps its job running until release is closed.
type holdWorker struct {
	river.WorkerDefaults[holdArgs]
	release chan struct{}
}

func (w *holdWorker) Work(ctx context.Context, _ *river.Job[holdArgs]) error {
	select {
	case <-w.release:
	case <-ctx.Done():
	}
	return nil
}

type passArgs struct{}

func (passArgs) Kind() string { return "test_pass" }

type passWorker struct {
	river.WorkerDefaults[passArgs]
	ran chan struct{}
}

func (w *passWorker) Work(context.Context, *river.Job[passArgs]) error {
	close(w.ran)
	return nil
}

// A job in a queue of its own (QueueOptions.Queues) runs while the default
// queue's workers are all busy with a backlog: the reconciler's pass must
// not wait behind a thousand intake jobs.
func TestOwnQueueIsNotStarvedByTheBacklog(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	ctx := t.Context()
	hold := &holdWorker{release: make(chan struct{})}
	pass := &passWorker{ran: make(chan struct{})}
	workers := river.NewWorkers()
	river.AddWorker(workers, hold)
	river.AddWorker(workers, pass)
	q, err := s.NewQueue(store.QueueOptions{Workers: workers, MaxWorkers: 1, Queues: map[string]int{"reconcile": 1},
		PollInterval: 20 * time.Millisecond, Logger: quiet()})
	require.NoError(t, err)
	for i := range 5 {
		_, _, err := q.Insert(ctx, holdArgs{N: i}, nil)
		require.NoError(t, err)
	}
	_, _, err = q.Insert(ctx, passArgs{}, &river.InsertOpts{Queue: "reconcile"})
	require.NoError(t, err)
	require.NoError(t, q.Start(ctx))
	t.Cleanup(func() {
		close(hold.release)
		stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = q.Stop(stop)
	})
	select {
	case <-pass.ran:
	case <-time.After(10 * time.Second):
		t.Fatal("the job in its own queue waited behind the default queue's backlog")
	}
}
