package workflow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/store"
)

// Deps are the parts the engine drives. All are required but Summarizer
// (without it pushes refresh nothing).
type Deps struct {
	Store      *store.Store
	GitHub     Installations
	Git        Git
	Explorer   Explorer
	Planner    Planner
	Coder      Coder
	Summarizer Summarizer
}

// Options tune the engine; zero values take the defaults noted.
type Options struct {
	// Label is the trigger label of repositories whose
	// .github/issuesmith.yml does not name one; "issuesmith" by default.
	Label string
	// BotLogin is the App's bot user ("name[bot]"); review comments must
	// mention @name to reach the bot.
	BotLogin string
	// MaxWorkers caps concurrent jobs in this process (default 4).
	MaxWorkers int
	// PollInterval is how often idle workers look for jobs (default 1s).
	PollInterval time.Duration
	// JobTimeout bounds one job (default 1 hour: the coder alone may use
	// 30 minutes by the default budgets).
	JobTimeout time.Duration
	// LeaseWait is how long a job for a busy issue waits before trying
	// again (default 5s; River promotes waiting jobs every few seconds, so
	// shorter values only matter when negative: retry at the next poll).
	LeaseWait time.Duration
	// WatchInterval is how often a running stage checks whether its run
	// was cancelled (default 2s).
	WatchInterval time.Duration
	// Cost estimates the cost of a role's usage when the agent reported
	// none (Spend.Cost is 0); nil means zero.
	Cost func(role llm.Role, u llm.Usage) float64
	// Usage, when set, is told every agent's usage and estimated cost
	// (metrics).
	Usage func(role llm.Role, u llm.Usage, cost float64)
	// Observe, when set, is told each job's stage and outcome (metrics):
	// outcome is one of ok, waiting, failed, cancelled, retry, snoozed.
	Observe func(stage, outcome string)
	// Logger receives the engine's and River's logs; slog.Default() if nil.
	Logger *slog.Logger
}

// Engine runs issue journeys as River jobs on the store's database. It is
// safe for concurrent use.
type Engine struct {
	d     Deps
	o     Options
	queue *store.Queue
	log   *slog.Logger
}

// New builds the engine and its job queue. Call Start to work jobs.
func New(d Deps, o Options) (*Engine, error) {
	if d.Store == nil || d.GitHub == nil || d.Git == nil || d.Explorer == nil || d.Planner == nil || d.Coder == nil {
		return nil, errors.New("workflow: store, github, git, explorer, planner and coder are all required")
	}
	if o.Label == "" {
		o.Label = "issuesmith"
	}
	switch {
	case o.LeaseWait == 0:
		o.LeaseWait = 5 * time.Second
	case o.LeaseWait < 0:
		o.LeaseWait = 0 // try again at the next poll (tests)
	}
	if o.WatchInterval <= 0 {
		o.WatchInterval = 2 * time.Second
	}
	if o.JobTimeout <= 0 {
		o.JobTimeout = time.Hour
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	e := &Engine{d: d, o: o, log: o.Logger}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &worker{e: e}); err != nil {
		return nil, fmt.Errorf("workflow: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &pruneWorker{e: e}); err != nil {
		return nil, fmt.Errorf("workflow: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &refreshWorker{e: e}); err != nil {
		return nil, fmt.Errorf("workflow: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &labelWorker{e: e}); err != nil {
		return nil, fmt.Errorf("workflow: %w", err)
	}
	q, err := d.Store.NewQueue(store.QueueOptions{
		Workers:      workers,
		MaxWorkers:   o.MaxWorkers,
		PollInterval: o.PollInterval,
		JobTimeout:   o.JobTimeout,
		Logger:       o.Logger,
		PeriodicJobs: periodicJobs(),
	})
	if err != nil {
		return nil, err
	}
	e.queue = q
	return e, nil
}

// Start resumes work left by a previous process and starts working jobs.
func (e *Engine) Start(ctx context.Context) error {
	n, err := e.queue.RequeueOrphans(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		e.log.Info("resuming jobs left running by a previous process", "jobs", n)
	}
	return e.queue.Start(ctx)
}

// Stop stops taking jobs and waits for running ones to finish; when ctx
// expires first, running jobs are cancelled and stop at their next
// checkpoint, to be resumed by the next Start.
func (e *Engine) Stop(ctx context.Context) error { return e.queue.Stop(ctx) }

// Queue exposes the job queue (tests, metrics).
func (e *Engine) Queue() *store.Queue { return e.queue }

func (e *Engine) observe(stage, outcome string) {
	if e.o.Observe != nil {
		e.o.Observe(stage, outcome)
	}
}

// priced is the cost of sp: the agent's own pricing, else Options.Cost.
func (e *Engine) priced(role llm.Role, sp Spend) float64 {
	if sp.Cost != 0 || e.o.Cost == nil {
		return sp.Cost
	}
	return e.o.Cost(role, sp.Usage)
}
