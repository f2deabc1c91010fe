package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
)

// testCAS: a save from a copy older than the row is refused and writes
// nothing; an ended run is reported as ended before it is reported stale.
func testCAS(t *testing.T, s *store.Store) {
	ctx := t.Context()
	r, _, err := s.OpenRun(ctx, store.IssueKey{Owner: "o", Repo: "r", Issue: 9}, 1, "alice")
	require.NoError(t, err)
	other, err := s.Run(ctx, r.ID)
	require.NoError(t, err)
	r.Step = "first writer"
	require.NoError(t, s.SaveOpenRun(ctx, r))
	require.Equal(t, other.Version+1, r.Version)
	other.Step = "second writer, older copy"
	require.ErrorIs(t, s.SaveOpenRun(ctx, other), store.ErrStale)
	got, err := s.Run(ctx, r.ID)
	require.NoError(t, err)
	require.Equal(t, "first writer", got.Step, "the stale save wrote nothing")

	got.State = store.StateCancelled
	require.NoError(t, s.SaveRun(ctx, got))
	r.Step = "after the cancel"
	require.ErrorIs(t, s.SaveOpenRun(ctx, r), store.ErrClosed)
}

type stepArgs struct {
	RunID int64  `json:"run_id"`
	Stage string `json:"stage"`
}

func (stepArgs) Kind() string { return "test_step" }

// stepWorker moves a run from its stage to the next in one transaction:
// the run saved, the next job queued and this job completed. fail makes
// the transaction fail after all three, at the first attempt.
type stepWorker struct {
	river.WorkerDefaults[stepArgs]
	s    *store.Store
	q    func() *store.Queue
	fail bool
}

var next = map[string]string{"explore": "plan", "plan": "code"}

func (w *stepWorker) Work(ctx context.Context, job *river.Job[stepArgs]) error {
	return w.q().InTx(ctx, func(tx *store.Tx) error {
		run, err := tx.Run(ctx, job.Args.RunID)
		if err != nil {
			return err
		}
		if run.Stage != job.Args.Stage {
			return errors.New("job for a stage the run is not in")
		}
		run.Stage = next[run.Stage]
		if err := tx.SaveOpenRun(ctx, run); err != nil {
			return err
		}
		if next[run.Stage] != "" {
			if _, _, err := tx.Insert(ctx, stepArgs{RunID: run.ID, Stage: run.Stage}, nil); err != nil {
				return err
			}
		}
		if err := store.CompleteJob(ctx, tx, job); err != nil {
			return err
		}
		if w.fail && job.Attempt == 1 {
			return errors.New("injected failure after every write")
		}
		return nil
	})
}

// testTx: a stage transition commits whole or not at all, and a completed
// job is not worked again.
func testTx(t *testing.T, s *store.Store) {
	ctx := t.Context()
	r, _, err := s.OpenRun(ctx, store.IssueKey{Owner: "o", Repo: "r", Issue: 10}, 1, "alice")
	require.NoError(t, err)
	r.Stage = "explore"
	require.NoError(t, s.SaveOpenRun(ctx, r))

	var q *store.Queue
	workers := river.NewWorkers()
	river.AddWorker(workers, &stepWorker{s: s, q: func() *store.Queue { return q }, fail: true})
	q, err = s.NewQueue(store.QueueOptions{Workers: workers, PollInterval: 50 * time.Millisecond, Logger: quiet()})
	require.NoError(t, err)

	// A failed transaction leaves nothing: no job, no save.
	err = q.InTx(ctx, func(tx *store.Tx) error {
		if _, _, err := tx.Insert(ctx, stepArgs{RunID: r.ID, Stage: "never"}, nil); err != nil {
			return err
		}
		run, err := tx.Run(ctx, r.ID)
		if err != nil {
			return err
		}
		run.Step = "rolled back"
		if err := tx.SaveOpenRun(ctx, run); err != nil {
			return err
		}
		return errors.New("rollback")
	})
	require.EqualError(t, err, "rollback")
	jobs, err := q.Jobs(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, jobs)
	got, err := s.Run(ctx, r.ID)
	require.NoError(t, err)
	require.Equal(t, r.Version, got.Version)
	require.Empty(t, got.Step)

	_, _, err = q.Insert(ctx, stepArgs{RunID: r.ID, Stage: "explore"}, nil)
	require.NoError(t, err)
	require.NoError(t, q.Start(ctx))
	defer q.Stop(context.WithoutCancel(ctx)) //nolint:errcheck // the test is over; a slow stop changes nothing it checked
	require.Eventually(t, func() bool {
		got, err = s.Run(ctx, r.ID)
		return err == nil && got.Stage == "code"
	}, 20*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool {
		jobs, err = q.Jobs(ctx, river.NewJobListParams().States(rivertype.JobStateCompleted))
		return err == nil && len(jobs) == 2
	}, 20*time.Second, 50*time.Millisecond)
	for _, j := range jobs {
		// The injected failure rolled back the first attempt's writes
		// (the job completion with them); the second attempt committed.
		require.Equal(t, 2, j.Attempt, "job %d (%s)", j.ID, j.EncodedArgs)
	}
	require.EqualValues(t, r.Version+2, got.Version, "one save per transition: the failed one left none")
}

// testOrphans: an active run is an orphan only when no live job names it.
func testOrphans(t *testing.T, s *store.Store) {
	ctx := t.Context()
	q, err := s.NewQueue(store.QueueOptions{Logger: quiet()})
	require.NoError(t, err)
	withJob, _, err := s.OpenRun(ctx, store.IssueKey{Owner: "o", Repo: "r", Issue: 20}, 1, "a")
	require.NoError(t, err)
	orphan, _, err := s.OpenRun(ctx, store.IssueKey{Owner: "o", Repo: "r", Issue: 21}, 1, "a")
	require.NoError(t, err)
	waiting, _, err := s.OpenRun(ctx, store.IssueKey{Owner: "o", Repo: "r", Issue: 22}, 1, "a")
	require.NoError(t, err)
	waiting.State = store.StateWaiting
	require.NoError(t, s.SaveOpenRun(ctx, waiting))
	_, _, err = q.Insert(ctx, stepArgs{RunID: withJob.ID, Stage: "plan"}, nil)
	require.NoError(t, err)
	_, _, err = q.Insert(ctx, stepArgs{RunID: orphan.ID + 1000, Stage: "plan"}, nil)
	require.NoError(t, err)

	got, err := s.ActiveRunsWithoutJob(ctx, stepArgs{}.Kind(), -time.Minute)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, orphan.ID, got[0].ID)
	got, err = s.ActiveRunsWithoutJob(ctx, stepArgs{}.Kind(), time.Hour)
	require.NoError(t, err)
	require.Empty(t, got, "a run saved within idle is left alone")
}
