package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/issuesmith/issuesmith/budget"
	"github.com/issuesmith/issuesmith/config"
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
	// Forks, when set, makes the bot push to forks (push: fork, fork.go).
	Forks Forks
	// Budget, when set, checks every model call of a stage against the
	// spending limits (budget.go); the agents' model client must consult
	// it (llm.Config.Gate). Nil: nothing is limited.
	Budget *budget.Gate
	// ForgeOf, when set, names the forge an installation id belongs to
	// (the server serves a GitHub App and a self-hosted forge side by side,
	// each with its own ids): a repository the store knows under one
	// forge's installation is never worked on for an event of another
	// (forge.go). Nil: one forge.
	ForgeOf func(installationID int64) string
}

// Options tune the engine; zero values take the defaults noted.
type Options struct {
	// Label is the trigger label of repositories whose
	// .github/issuesmith.yml does not name one; "issuesmith" by default.
	Label string
	// BotLogin is the App's bot user ("name[bot]"); review comments must
	// mention @name to reach the bot.
	BotLogin string
	// BotAliases are the bot's logins on the other forges it serves (the
	// Gitea user it acts as): a mention of any of them reaches the bot, and
	// a reply by any of them is the bot's.
	BotAliases []string
	// MaxWorkers caps concurrent jobs in this process (default 4).
	MaxWorkers int
	// PollInterval is how often idle workers look for jobs (default 1s).
	PollInterval time.Duration
	// JobTimeout bounds one job (default 1 hour: the coder alone may use
	// 30 minutes by the default budgets). The engine enforces it itself,
	// so River's rescue of a dead replica's jobs does not wait for it.
	JobTimeout time.Duration
	// LeaseTTL is how long an issue's lease outlives its holder's last
	// heartbeat (default 90s; the holder renews it every third of that).
	// A crashed process's issues are free again after at most this long.
	LeaseTTL time.Duration
	// RescueAfter is how long a stage job may run on PostgreSQL before
	// River's rescuer assumes its replica died and queues it again
	// (default 3 minutes; more than LeaseTTL). A live job that runs longer
	// keeps its issue's lease, so the queued copy waits and then finds the
	// stage done. SQLite has one process: jobs it left running are
	// resumed at its next start instead.
	RescueAfter time.Duration
	// LeaseWait is how long a job for a busy issue waits before trying
	// again (default 5s; negative: at the next poll). River makes a job
	// snoozed for less than its scheduler interval available at once, due
	// at the end of the wait, so short waits are exact.
	LeaseWait time.Duration
	// WatchInterval is how often a running stage checks whether its run
	// was cancelled (default 2s).
	WatchInterval time.Duration
	// Limits are the server's spending limits and loop guard (with
	// Deps.Budget; nil: none).
	Limits *config.Limits
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
	// RefreshSchedule, when set, refreshes the summaries of every used
	// repository periodically (RefreshAllArgs); a *summaries.Schedule
	// parsed from a cron spec fits. Nil: only pushes refresh.
	RefreshSchedule river.PeriodicSchedule
	// Redeliver, run on RedeliverSchedule (both set), asks GitHub to
	// redeliver the webhook deliveries the bot missed (RedeliverArgs).
	Redeliver         func(ctx context.Context) error
	RedeliverSchedule river.PeriodicSchedule
	// CIPoll is how often a CI job looks again at a head commit whose
	// checks are still running (default 30s); CIWait is how long it keeps
	// looking after it was queued (default 3h).
	CIPoll time.Duration
	CIWait time.Duration
	// Preflight, when set, runs before a stage that clones, builds or
	// tests (explore, code, revise, CI); its error ends the run with the
	// error's text as the comment (the server's free-space floor).
	Preflight func(ctx context.Context) error
	// ReplicaID names this process among the replicas working one
	// PostgreSQL database, the same across its restarts (bot serve: the
	// host name and listen port). Jobs the previous process with this ID
	// left running resume at Start instead of after RescueAfter. Two live
	// processes must never share one; "" means none (a random River ID).
	ReplicaID string
	// Sessions, when set, records each run's session in the store
	// (recording.go); nil records nothing.
	Sessions *Sessions
}

// Defaults of Options.LeaseTTL and Options.RescueAfter: a PostgreSQL
// replica that dies mid-stage has its job picked up by another replica
// within RescueAfter plus River's 30s rescue interval (about 3.5 minutes).
const (
	DefaultLeaseTTL    = 90 * time.Second
	DefaultRescueAfter = 3 * time.Minute
)

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
	d.Git = recordingGit{withForks(d.Git, d.Forks)}
	if o.Label == "" {
		o.Label = "issuesmith"
	}
	switch {
	case o.LeaseWait == 0:
		o.LeaseWait = 5 * time.Second
	case o.LeaseWait < 0:
		o.LeaseWait = 0 // try again at the next poll (tests)
	}
	if o.CIPoll <= 0 {
		o.CIPoll = 30 * time.Second
	}
	if o.CIWait <= 0 {
		o.CIWait = 3 * time.Hour
	}
	if o.WatchInterval <= 0 {
		o.WatchInterval = 2 * time.Second
	}
	if o.JobTimeout <= 0 {
		o.JobTimeout = time.Hour
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = DefaultLeaseTTL
	}
	if o.RescueAfter <= 0 {
		o.RescueAfter = DefaultRescueAfter
	}
	if o.RescueAfter <= o.LeaseTTL {
		return nil, fmt.Errorf("workflow: RescueAfter (%s) must exceed LeaseTTL (%s)", o.RescueAfter, o.LeaseTTL)
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
	if err := river.AddWorkerSafely(workers, &refreshAllWorker{e: e}); err != nil {
		return nil, fmt.Errorf("workflow: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &progressWorker{e: e}); err != nil {
		return nil, fmt.Errorf("workflow: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &intakeWorker{e: e}); err != nil {
		return nil, fmt.Errorf("workflow: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &redeliverWorker{e: e}); err != nil {
		return nil, fmt.Errorf("workflow: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &idleStopWorker{e: e}); err != nil {
		return nil, fmt.Errorf("workflow: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &orphanWorker{e: e}); err != nil {
		return nil, fmt.Errorf("workflow: %w", err)
	}
	qo := store.QueueOptions{
		Workers:      workers,
		MaxWorkers:   o.MaxWorkers,
		Queues:       map[string]int{QueueReconcile: 1},
		PollInterval: o.PollInterval,
		JobTimeout:   -1, // no River timeout: the worker applies o.JobTimeout
		Logger:       o.Logger,
		PeriodicJobs: periodicJobs(o),
		Middleware:   []rivertype.Middleware{&rateWait{e: e}},
	}
	if d.Store.Dialect() == store.Postgres {
		qo.RescueAfter, qo.ID = o.RescueAfter, o.ReplicaID
	}
	q, err := d.Store.NewQueue(qo)
	if err != nil {
		return nil, err
	}
	e.queue = q
	return e, nil
}

// Start resumes work left by a previous process and starts working jobs.
func (e *Engine) Start(ctx context.Context) error {
	// Jobs left running by this process's previous life (on SQLite, by
	// any process: one works the database) are orphans, and so are the
	// issue leases they held.
	if err := e.releaseOrphanLeases(ctx); err != nil {
		return err
	}
	n, err := e.queue.RequeueOrphans(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		e.log.Info("resuming jobs left running by a previous process", "jobs", n)
	}
	return e.queue.Start(ctx)
}

// releaseOrphanLeases gives back the issue leases of stage jobs left
// running, so they resume at once instead of after LeaseTTL.
func (e *Engine) releaseOrphanLeases(ctx context.Context) error {
	jobs, err := e.queue.Jobs(ctx, river.NewJobListParams().Kinds(StageArgs{}.Kind()).
		States(rivertype.JobStateRunning).First(1000))
	if err != nil {
		return err
	}
	for _, j := range jobs {
		var a StageArgs
		if !e.queue.Orphan(j) || json.Unmarshal(j.EncodedArgs, &a) != nil {
			continue
		}
		run, err := getRun(ctx, e.d.Store, a.RunID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if err := e.d.Store.ReleaseLease(ctx, run.IssueKey.row(), leaseHolder(j.ID, j.Attempt)); err != nil {
			return err
		}
	}
	return nil
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
