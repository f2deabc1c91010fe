package workflow

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// DeliveryRetention is how long webhook delivery ids are kept for dedupe;
// GitHub redelivers for at most three days.
const DeliveryRetention = 7 * 24 * time.Hour

// PruneArgs is the periodic maintenance job: it forgets old webhook
// deliveries so the dedupe table stays small.
type PruneArgs struct{}

// Kind names the job kind in River.
func (PruneArgs) Kind() string { return "issuesmith_prune" }

type pruneWorker struct {
	river.WorkerDefaults[PruneArgs]
	e *Engine
}

// Timeout bounds a prune (River itself has no job timeout here).
func (w *pruneWorker) Timeout(*river.Job[PruneArgs]) time.Duration { return 10 * time.Minute }

// Work deletes deliveries older than DeliveryRetention.
func (w *pruneWorker) Work(ctx context.Context, _ *river.Job[PruneArgs]) error {
	n, err := w.e.d.Store.PruneDeliveries(ctx, DeliveryRetention)
	if err != nil {
		return err
	}
	w.e.log.Info("pruned old webhook deliveries", "deleted", n)
	return w.e.d.Store.PruneTriggers(ctx, 2*loopWindow)
}

// periodicJobs are the engine's scheduled jobs: the prune, and the
// summary refresh when o.RefreshSchedule is set.
func periodicJobs(o Options) []*river.PeriodicJob {
	jobs := []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(6*time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return PruneArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(OrphanInterval),
			func() (river.JobArgs, *river.InsertOpts) { return OrphanArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
	if o.RefreshSchedule != nil {
		jobs = append(jobs, river.NewPeriodicJob(o.RefreshSchedule,
			func() (river.JobArgs, *river.InsertOpts) { return RefreshAllArgs{}, nil }, nil))
	}
	if o.Redeliver != nil && o.RedeliverSchedule != nil {
		jobs = append(jobs, river.NewPeriodicJob(o.RedeliverSchedule,
			func() (river.JobArgs, *river.InsertOpts) { return RedeliverArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true}))
	}
	return jobs
}
