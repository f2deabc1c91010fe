package workflow

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/store"
)

// DefaultRefreshSchedule is the cron spec of the periodic summary refresh
// `bot serve` uses unless told otherwise: nightly at 03:00 (UTC).
const DefaultRefreshSchedule = "0 3 * * *"

// RefreshAllArgs is the periodic job that refreshes the summaries of every
// repository the bot has been used on (store.KnownRepos: it had runs, or
// pushes refreshed): a push the webhook never delivered still reaches the
// summaries by the next night. It queues one RefreshArgs per repository.
type RefreshAllArgs struct{}

// Kind names the job kind in River.
func (RefreshAllArgs) Kind() string { return "issuesmith_refresh_all" }

// InsertOpts: one waiting or running at a time (River's default unique
// states would count completed ones too, and refresh only once a day).
func (RefreshAllArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, UniqueOpts: store.UniqueWhileQueued()}
}

type refreshAllWorker struct {
	river.WorkerDefaults[RefreshAllArgs]
	e *Engine
}

// Timeout bounds the listing and queueing (the refreshes are jobs of
// their own).
func (w *refreshAllWorker) Timeout(*river.Job[RefreshAllArgs]) time.Duration { return 10 * time.Minute }

// Work queues a refresh of every used repository.
func (w *refreshAllWorker) Work(ctx context.Context, _ *river.Job[RefreshAllArgs]) error {
	e := w.e
	if e.d.Summarizer == nil {
		return nil
	}
	repos, err := e.usedRepos(ctx)
	if err != nil {
		return err
	}
	for _, a := range repos {
		if err := e.queueRefresh(ctx, a); err != nil {
			return err
		}
	}
	e.log.Info("periodic summary refresh queued", "repositories", len(repos))
	return nil
}

// usedRepos lists the repositories the bot has worked on (the store's
// known repositories: a run opened there, or a push was refreshed), each
// with the installation it was last seen under.
func (e *Engine) usedRepos(ctx context.Context) ([]RefreshArgs, error) {
	known, err := e.d.Store.KnownRepos(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]RefreshArgs, 0, len(known))
	for _, k := range known {
		out = append(out, RefreshArgs{InstallationID: k.InstallationID, Owner: k.Owner, Repo: k.Repo})
	}
	return out, nil
}
