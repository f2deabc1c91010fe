package store

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"
)

type pgxTx = pgx.Tx

// riverClient is what Queue uses of a river.Client, whatever its driver's
// transaction type.
type riverClient interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobCancel(ctx context.Context, jobID int64) (*rivertype.JobRow, error)
	JobGet(ctx context.Context, jobID int64) (*rivertype.JobRow, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
	Subscribe(kinds ...river.EventKind) (<-chan *river.Event, func())
}

// QueueOptions configure the job queue.
type QueueOptions struct {
	// Workers are the job kinds this process works. Nil makes an
	// insert-only queue (for tools that enqueue but never work).
	Workers *river.Workers
	// MaxWorkers caps concurrent jobs of the default queue in this
	// process; 0 means 4.
	MaxWorkers int
	// Queues are further queues this process works, each with its own
	// workers (name → MaxWorkers): a job inserted with InsertOpts.Queue set
	// to one of them never waits behind the default queue's backlog.
	Queues map[string]int
	// PeriodicJobs are scheduled jobs (summary refresh, missed work).
	PeriodicJobs []*river.PeriodicJob
	// JobTimeout bounds one job; 0 means 30 minutes.
	JobTimeout time.Duration
	// Logger receives River's logs; nil means slog.Default().
	Logger *slog.Logger
	// PollInterval is how often workers look for new jobs (SQLite has no
	// LISTEN/NOTIFY); 0 means one second.
	PollInterval time.Duration
	// Middleware wraps every job (metrics, logging).
	Middleware []rivertype.Middleware
	// RescueAfter is how long a job may stay running before River assumes
	// its worker died and runs it again (PostgreSQL replicas); 0 means
	// JobTimeout plus a minute.
	RescueAfter time.Duration
	// ID names this process among those working the database, the same
	// across its restarts (River's client ID). Two live processes must never
	// share one. With it, RequeueOrphans on PostgreSQL takes back the jobs
	// this ID's previous process left running. "" means a random ID.
	ID string
}

// Queue is River on the store's database. Methods are safe for concurrent use.
type Queue struct {
	c riverClient
	s *Store
	// The same client typed by driver, for inserts inside the store's own
	// transactions (InsertTx): exactly one is set.
	pg   *river.Client[pgxTx]
	lite *river.Client[*sql.Tx]
	id   string // QueueOptions.ID
	// group gathers SQLite's concurrent Accepts into one transaction
	// (intake_batch.go).
	group acceptGroup
}

// NewQueue builds the River client for the store's database. Run Migrate
// first. Start begins working; Stop waits for running jobs.
func (s *Store) NewQueue(opts QueueOptions) (*Queue, error) {
	cfg := &river.Config{
		Logger:            quietRiver(opts.Logger),
		JobTimeout:        opts.JobTimeout,
		FetchPollInterval: opts.PollInterval,
		PeriodicJobs:      opts.PeriodicJobs,
		Middleware:        opts.Middleware,
		ID:                opts.ID,
	}
	if cfg.JobTimeout == 0 {
		cfg.JobTimeout = 30 * time.Minute
	}
	if cfg.FetchPollInterval == 0 {
		cfg.FetchPollInterval = time.Second
	}
	if cfg.FetchCooldown == 0 || cfg.FetchCooldown > cfg.FetchPollInterval {
		cfg.FetchCooldown = min(100*time.Millisecond, cfg.FetchPollInterval)
	}
	cfg.RescueStuckJobsAfter = opts.RescueAfter
	if cfg.RescueStuckJobsAfter < cfg.JobTimeout {
		cfg.RescueStuckJobsAfter = cfg.JobTimeout + time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if opts.Workers != nil {
		n := opts.MaxWorkers
		if n <= 0 {
			n = 4
		}
		cfg.Workers = opts.Workers
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: n}}
		for name, w := range opts.Queues {
			cfg.Queues[name] = river.QueueConfig{MaxWorkers: max(w, 1)}
		}
	}
	var (
		c   riverClient
		err error
	)
	q := &Queue{s: s, id: opts.ID}
	switch s.dialect {
	case Postgres:
		q.pg, err = river.NewClient[pgxTx](riverpgxv5.New(s.pool), cfg)
		c = q.pg
	default:
		// River's reindexer (midnight UTC) rebuilds indexes by PostgreSQL's
		// names; SQLite's schema lacks three (args, metadata, pkey), each an
		// ERROR line a quiet server would log every night.
		cfg.ReindexerSchedule = river.NeverSchedule()
		q.lite, err = river.NewClient[*sql.Tx](riversqlite.New(s.db), cfg)
		c = q.lite
	}
	if err != nil {
		return nil, fmt.Errorf("new job queue: %w", err)
	}
	q.c = c
	return q, nil
}

// RequeueOrphans makes jobs left running by a process that died available
// again, and reports how many (call it before Start). On SQLite one process
// works the database: every running job is an orphan. On PostgreSQL other
// replicas may be alive, so only the jobs whose last attempt was this
// queue's ID (QueueOptions.ID: this process's previous life) are taken
// back; without an ID none are, and River's rescuer takes them after
// RescueAfter (or the job kind's timeout, when longer).
func (q *Queue) RequeueOrphans(ctx context.Context) (int64, error) {
	var (
		res sql.Result
		err error
	)
	switch {
	case q.s.dialect == SQLite:
		res, err = q.s.exec(ctx, `UPDATE river_job SET state = 'available' WHERE state = 'running'`)
	case q.id != "":
		res, err = q.s.exec(ctx, `UPDATE river_job SET state = 'available', scheduled_at = now()
			WHERE state = 'running' AND attempted_by[array_length(attempted_by, 1)] = ?`, q.id)
	default:
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("requeue orphaned jobs: %w", err)
	}
	return res.RowsAffected()
}

// Orphan reports whether job, left running, is one RequeueOrphans takes
// back.
func (q *Queue) Orphan(job *rivertype.JobRow) bool {
	if job.State != rivertype.JobStateRunning {
		return false
	}
	if q.s.dialect == SQLite {
		return true
	}
	return q.id != "" && len(job.AttemptedBy) > 0 && job.AttemptedBy[len(job.AttemptedBy)-1] == q.id
}

// Start begins fetching and working jobs until Stop.
func (q *Queue) Start(ctx context.Context) error { return q.c.Start(ctx) }

// Stop stops fetching new jobs and waits for running ones to return (they
// see their context cancelled only if ctx expires first, via StopAndCancel).
func (q *Queue) Stop(ctx context.Context) error {
	err := q.c.Stop(ctx)
	if err != nil && ctx.Err() != nil {
		// Deadline hit: cancel running jobs so they reach a checkpoint now.
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return q.c.StopAndCancel(cctx)
	}
	return err
}

// Insert enqueues a job. skipped is true when a unique job with the same
// key already waits or runs, in which case id is that job's.
func (q *Queue) Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (id int64, skipped bool, err error) {
	res, err := q.c.Insert(ctx, args, opts)
	if err != nil {
		return 0, false, fmt.Errorf("enqueue %s: %w", args.Kind(), err)
	}
	return res.Job.ID, res.UniqueSkippedAsDuplicate, nil
}

// Cancel cancels a job: a queued one never runs, a running one sees its
// context cancelled.
func (q *Queue) Cancel(ctx context.Context, id int64) error {
	if _, err := q.c.JobCancel(ctx, id); err != nil {
		return fmt.Errorf("cancel job %d: %w", id, err)
	}
	return nil
}

// Job returns a job's row.
func (q *Queue) Job(ctx context.Context, id int64) (*rivertype.JobRow, error) {
	j, err := q.c.JobGet(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("get job %d: %w", id, err)
	}
	return j, nil
}

// Jobs lists jobs matching params (nil lists the first page of all).
func (q *Queue) Jobs(ctx context.Context, params *river.JobListParams) ([]*rivertype.JobRow, error) {
	if params == nil {
		params = river.NewJobListParams()
	}
	res, err := q.c.JobList(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return res.Jobs, nil
}

// Subscribe returns a channel of job events of the given kinds and a
// function to stop the subscription (tests and metrics use it).
func (q *Queue) Subscribe(kinds ...river.EventKind) (<-chan *river.Event, func()) {
	return q.c.Subscribe(kinds...)
}
