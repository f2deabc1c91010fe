package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

// suite runs every store check against one dialect.
var suite = []struct {
	name string
	fn   func(t *testing.T, s *store.Store)
}{
	{"migrate", testMigrate},
	{"deliveries", testDeliveries},
	{"summaries", testSummaries},
	{"runs", testRuns},
	{"checkpoints", testCheckpoints},
	{"leases", testLeases},
	{"queue", testQueue},
	{"accept", testAccept},
	{"open runs of", testOpenRunsOf},
	{"compare and swap", testCAS},
	{"transaction", testTx},
	{"orphans", testOrphans},
	{"unique states", testUnique},
	{"known repositories", testKnownRepos},
	{"known repositories backfill", testKnownReposBackfill},
	{"issue labels", testIssueLabels},
}

func TestSQLite(t *testing.T) {
	t.Parallel()
	for _, tc := range suite {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, storetest.SQLite(t)) })
	}
}

func TestPostgres(t *testing.T) {
	t.Parallel()
	srv := storetest.StartPostgres(t)
	for _, tc := range suite {
		t.Run(tc.name, func(t *testing.T) {
			s := srv.Open(t)
			require.Equal(t, store.Postgres, s.Dialect())
			tc.fn(t, s)
		})
	}
}

func testMigrate(t *testing.T, s *store.Store) {
	ctx := t.Context()
	v, err := s.Version(ctx)
	require.NoError(t, err)
	require.Equal(t, 8, v)
	again, err := s.Migrate(ctx)
	require.NoError(t, err)
	require.Empty(t, again.Applied, "a second migrate applies nothing")
	require.Empty(t, again.RiverApplied)
	require.Equal(t, 8, again.Version)
	var n int
	require.NoError(t, s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job`).Scan(&n), "river tables exist")
}

func testDeliveries(t *testing.T, s *store.Store) {
	ctx := t.Context()
	fresh, err := s.RecordDelivery(ctx, "d-1", "issues")
	require.NoError(t, err)
	require.True(t, fresh)
	fresh, err = s.RecordDelivery(ctx, "d-1", "issues")
	require.NoError(t, err)
	require.False(t, fresh, "a replayed delivery is not fresh")
	require.NoError(t, s.ForgetDelivery(ctx, "d-1"))
	fresh, err = s.RecordDelivery(ctx, "d-1", "issues")
	require.NoError(t, err)
	require.True(t, fresh, "a forgotten delivery is processed again")
	_, err = s.RecordDelivery(ctx, "", "issues")
	require.Error(t, err)
	n, err := s.PruneDeliveries(ctx, -time.Hour) // everything is older than "an hour from now"
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
}

func testSummaries(t *testing.T, s *store.Store) {
	ctx := t.Context()
	c := s.Summaries()
	_, ok, err := c.Get(ctx, "abc")
	require.NoError(t, err)
	require.False(t, ok)
	require.NoError(t, c.Put(ctx, "abc", "parses flags"))
	require.NoError(t, s.PutSummary(ctx, "abc", "parses command-line flags"))
	got, ok, err := s.GetSummary(ctx, "abc")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "parses command-line flags", got)
}

func testRuns(t *testing.T, s *store.Store) {
	ctx := t.Context()
	key := store.IssueKey{Owner: "o", Repo: "r", Issue: 7}
	_, err := s.OpenRunFor(ctx, key)
	require.ErrorIs(t, err, store.ErrNotFound)

	r, created, err := s.OpenRun(ctx, key, 42, "alice")
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, store.StateActive, r.State)
	same, created, err := s.OpenRun(ctx, key, 42, "bob")
	require.NoError(t, err)
	require.False(t, created, "one open run per issue")
	require.Equal(t, r.ID, same.ID)
	require.Equal(t, "alice", same.Requester)

	r.Stage, r.State, r.PlanCommentID, r.PlanBody = "plan", store.StateWaiting, 99, "- [ ] approve"
	r.PRNumber, r.Branch, r.TriggerLabel = 3, "issuesmith/issue-7", "bot-please"
	r.InstallationID = 43 // the App was installed again
	require.NoError(t, s.SaveRun(ctx, r))
	got, err := s.RunByPR(ctx, "o", "r", 3)
	require.NoError(t, err)
	require.EqualValues(t, 43, got.InstallationID)
	require.Equal(t, r.ID, got.ID)
	require.Equal(t, "- [ ] approve", got.PlanBody)
	require.Equal(t, "bot-please", got.TriggerLabel)
	require.EqualValues(t, 99, got.PlanCommentID)

	_, err = s.AddUsage(ctx, r.ID, 100, 20, 0.5)
	require.NoError(t, err)
	got, err = s.AddUsage(ctx, r.ID, 1, 2, 0.25)
	require.NoError(t, err)
	require.EqualValues(t, 101, got.PromptTokens)
	require.EqualValues(t, 22, got.CompletionTokens)
	require.InDelta(t, 0.75, got.Cost, 1e-9)
	// A save from a copy read before the usage was added (/stop, a steer
	// or a stage saving its own copy while an agent reports usage) keeps
	// the usage: only AddUsage changes it.
	r.Step = "stale copy"
	require.NoError(t, s.SaveOpenRun(ctx, r))
	got, err = s.Run(ctx, r.ID)
	require.NoError(t, err)
	require.Equal(t, "stale copy", got.Step)
	require.EqualValues(t, 101, got.PromptTokens, "usage survives a stale save")
	require.EqualValues(t, 22, got.CompletionTokens)
	require.InDelta(t, 0.75, got.Cost, 1e-9)

	// Concurrent openers of another issue all get the one run.
	ids := make(chan int64, 5)
	for i := range 5 {
		go func() {
			r, _, err := s.OpenRun(ctx, store.IssueKey{Owner: "o", Repo: "r", Issue: 8}, 42, fmt.Sprint(i))
			if err != nil {
				t.Error(err)
				ids <- 0
				return
			}
			ids <- r.ID
		}()
	}
	first := <-ids
	for range 4 {
		require.Equal(t, first, <-ids)
	}
	got.State = store.StateCancelled
	require.NoError(t, s.SaveRun(ctx, got))
	got.State, got.Stage = store.StateActive, "code"
	require.ErrorIs(t, s.SaveOpenRun(ctx, got), store.ErrClosed, "a job never resurrects a cancelled run")
	again, err := s.Run(ctx, got.ID)
	require.NoError(t, err)
	require.Equal(t, store.StateCancelled, again.State)
	next, created, err := s.OpenRun(ctx, key, 42, "carol")
	require.NoError(t, err)
	require.True(t, created, "a finished run makes room for a new one")
	require.NotEqual(t, r.ID, next.ID)
	latest, err := s.LatestRun(ctx, key)
	require.NoError(t, err)
	require.Equal(t, next.ID, latest.ID)
	_, err = s.Run(ctx, 12345)
	require.ErrorIs(t, err, store.ErrNotFound)
	g1, err := s.NextGeneration(ctx, next.ID)
	require.NoError(t, err)
	g2, err := s.NextGeneration(ctx, next.ID)
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2}, []int64{g1, g2})
	_, err = s.NextGeneration(ctx, 12345)
	require.ErrorIs(t, err, store.ErrNotFound)
}

func testCheckpoints(t *testing.T, s *store.Store) {
	ctx := t.Context()
	r, _, err := s.OpenRun(ctx, store.IssueKey{Owner: "o", Repo: "r", Issue: 1}, 1, "a")
	require.NoError(t, err)
	first, err := s.Checkpoint(ctx, r.ID, "plan.comment", "123")
	require.NoError(t, err)
	require.True(t, first)
	first, err = s.Checkpoint(ctx, r.ID, "plan.comment", "456")
	require.NoError(t, err)
	require.False(t, first)
	res, ok, err := s.StepResult(ctx, r.ID, "plan.comment")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "123", res, "the first result wins")
	_, err = s.Checkpoint(ctx, r.ID, "plan_x", "1") // '_' must not act as a LIKE wildcard
	require.NoError(t, err)
	_, err = s.Checkpoint(ctx, r.ID, "plan.b", "2")
	require.NoError(t, err)
	steps, err := s.Steps(ctx, r.ID, "plan.")
	require.NoError(t, err)
	require.Equal(t, []store.Step{{Name: "plan.b", Result: "2"}, {Name: "plan.comment", Result: "123"}}, steps)
	require.NoError(t, s.ForgetSteps(ctx, r.ID, "plan."))
	_, ok, err = s.StepResult(ctx, r.ID, "plan.comment")
	require.NoError(t, err)
	require.False(t, ok)
	_, ok, err = s.StepResult(ctx, r.ID, "plan_x")
	require.NoError(t, err)
	require.True(t, ok)
}

func testLeases(t *testing.T, s *store.Store) {
	ctx := t.Context()
	key := store.IssueKey{Owner: "o", Repo: "r", Issue: 1}
	ok, err := s.AcquireLease(ctx, key, "job-1", time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = s.AcquireLease(ctx, key, "job-2", time.Minute)
	require.NoError(t, err)
	require.False(t, ok, "the issue is held")
	ok, err = s.AcquireLease(ctx, key, "job-1", time.Minute)
	require.NoError(t, err)
	require.True(t, ok, "the holder may extend")
	require.NoError(t, s.ReleaseLease(ctx, key, "job-2"))
	ok, err = s.AcquireLease(ctx, key, "job-2", time.Minute)
	require.NoError(t, err)
	require.False(t, ok, "releasing someone else's lease does nothing")
	// An expired lease (a crashed holder) is taken over.
	ok, err = s.AcquireLease(ctx, store.IssueKey{Owner: "o", Repo: "r", Issue: 2}, "dead", -time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = s.AcquireLease(ctx, store.IssueKey{Owner: "o", Repo: "r", Issue: 2}, "alive", time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
}

type echoArgs struct {
	Issue int    `json:"issue" river:"unique"`
	Stage string `json:"stage" river:"unique"`
	Note  string `json:"note"`
}

func (echoArgs) Kind() string { return "test_echo" }

type echoWorker struct {
	river.WorkerDefaults[echoArgs]
	s *store.Store
}

func (w *echoWorker) Work(ctx context.Context, job *river.Job[echoArgs]) error {
	return w.s.Summaries().Put(ctx, "job", job.Args.Note)
}

func testQueue(t *testing.T, s *store.Store) {
	ctx := t.Context()
	workers := river.NewWorkers()
	river.AddWorker(workers, &echoWorker{s: s})
	q, err := s.NewQueue(store.QueueOptions{Workers: workers, PollInterval: 50 * time.Millisecond, Logger: quiet()})
	require.NoError(t, err)
	uniq := &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
	id, skipped, err := q.Insert(ctx, echoArgs{Issue: 1, Stage: "plan", Note: "first"}, uniq)
	require.NoError(t, err)
	require.False(t, skipped)
	id2, skipped, err := q.Insert(ctx, echoArgs{Issue: 1, Stage: "plan", Note: "second"}, uniq)
	require.NoError(t, err)
	require.True(t, skipped, "same issue and stage is one job")
	require.Equal(t, id, id2)
	_, skipped, err = q.Insert(ctx, echoArgs{Issue: 1, Stage: "code", Note: "other"}, uniq)
	require.NoError(t, err)
	require.False(t, skipped, "another stage is another job")

	events, cancel := q.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
	defer cancel()
	require.NoError(t, q.Start(ctx))
	done := 0
	for done < 2 {
		select {
		case ev := <-events:
			require.Equal(t, river.EventKindJobCompleted, ev.Kind, "job error: %v", ev.Job.Errors)
			done++
		case <-time.After(10 * time.Second):
			t.Fatal("jobs did not complete")
		}
	}
	stopCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	require.NoError(t, q.Stop(stopCtx))
	// A job left running by a dead process (SQLite: the only process) is
	// made available again.
	orphan, _, err := q.Insert(ctx, echoArgs{Issue: 2, Stage: "plan", Note: "orphan"}, uniq)
	require.NoError(t, err)
	_, err = s.DB().ExecContext(ctx, `UPDATE river_job SET state = 'running' WHERE id = `+fmt.Sprint(orphan))
	require.NoError(t, err)
	n, err := q.RequeueOrphans(ctx)
	require.NoError(t, err)
	if s.Dialect() == store.SQLite {
		require.EqualValues(t, 1, n)
		job, err := q.Job(ctx, orphan)
		require.NoError(t, err)
		require.Equal(t, "available", string(job.State))
	} else {
		require.Zero(t, n, "without an ID PostgreSQL leaves it to River's rescuer")
		testReplicaOrphans(t, s, workers, orphan)
	}
	job, err := q.Job(ctx, id)
	require.NoError(t, err)
	require.Equal(t, "completed", string(job.State))
	got, ok, err := s.Summaries().Get(ctx, "job")
	require.NoError(t, err)
	require.True(t, ok)
	require.Contains(t, []string{"first", "other"}, got, "the worker ran against the same database")
}

// testReplicaOrphans: on PostgreSQL a queue with an ID takes back the jobs
// its previous life (the same ID) left running, never another replica's.
func testReplicaOrphans(t *testing.T, s *store.Store, workers *river.Workers, unattempted int64) {
	ctx := t.Context()
	q, err := s.NewQueue(store.QueueOptions{Workers: workers, Logger: quiet(), ID: "host-a:8080"})
	require.NoError(t, err)
	running := func(note string, by ...string) int64 {
		id, _, err := q.Insert(ctx, echoArgs{Issue: 3, Stage: note, Note: note}, nil)
		require.NoError(t, err)
		_, err = s.DB().ExecContext(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_by = $1 WHERE id = $2`,
			"{"+strings.Join(by, ",")+"}", id)
		require.NoError(t, err)
		return id
	}
	mine := running("mine", "host-b:8080", "host-a:8080")
	theirs := running("theirs", "host-a:8080", "host-b:8080")
	rows, err := q.Jobs(ctx, river.NewJobListParams().States(rivertype.JobStateRunning))
	require.NoError(t, err)
	orphans := map[int64]bool{}
	for _, j := range rows {
		orphans[j.ID] = q.Orphan(j)
	}
	require.Equal(t, map[int64]bool{mine: true, theirs: false, unattempted: false}, orphans)
	n, err := q.RequeueOrphans(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "only the job whose last attempt was this ID")
	job, err := q.Job(ctx, mine)
	require.NoError(t, err)
	require.Equal(t, "available", string(job.State))
	job, err = q.Job(ctx, theirs)
	require.NoError(t, err)
	require.Equal(t, "running", string(job.State), "host-b may be alive: River's rescuer decides")
}

func TestOpenRedactsPassword(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	_, err := store.Open(ctx, "postgres://bot:s3cretpw@127.0.0.1:1/db?sslmode=disable&connect_timeout=2")
	require.Error(t, err)
	require.NotContains(t, err.Error(), "s3cretpw")
	require.False(t, errors.Is(err, store.ErrNotFound))
	require.True(t, strings.Contains(err.Error(), "open postgres"), err.Error())
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
