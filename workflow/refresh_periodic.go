package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/store"
)

// DefaultRefreshSchedule is the cron spec of the periodic summary refresh
// `bot serve` uses unless told otherwise: nightly at 03:00 (UTC).
const DefaultRefreshSchedule = "0 3 * * *"

// RefreshAllArgs is the periodic job that refreshes the summaries of every
// repository the bot has been used on (it has runs, or earlier refreshes):
// a push the webhook never delivered still reaches the summaries by the
// next night. It queues one RefreshArgs per repository.
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

// usedRepos lists the repositories with runs or earlier refresh jobs, each
// with the installation id it was last seen with.
func (e *Engine) usedRepos(ctx context.Context) ([]RefreshArgs, error) {
	type seen struct {
		a  RefreshArgs
		at int64 // run id or job id order: later wins the installation id
	}
	byRepo := map[string]seen{}
	rows, err := e.d.Store.DB().QueryContext(ctx,
		`SELECT installation_id, owner, repo, MAX(id) FROM runs GROUP BY installation_id, owner, repo`)
	if err != nil {
		return nil, fmt.Errorf("list repositories with runs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s seen
		if err := rows.Scan(&s.a.InstallationID, &s.a.Owner, &s.a.Repo, &s.at); err != nil {
			return nil, fmt.Errorf("list repositories with runs: %w", err)
		}
		if k := s.a.Owner + "/" + s.a.Repo; byRepo[k].at <= s.at {
			byRepo[k] = s
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list repositories with runs: %w", err)
	}
	jobs, err := e.queue.Jobs(ctx, river.NewJobListParams().Kinds(RefreshArgs{}.Kind()).First(10000))
	if err != nil {
		return nil, err
	}
	for _, j := range jobs {
		var a RefreshArgs
		if json.Unmarshal(j.EncodedArgs, &a) != nil {
			continue
		}
		a.Again = false
		if k := a.Owner + "/" + a.Repo; byRepo[k].at == 0 { // a later job's installation id wins
			byRepo[k] = seen{a: a}
		}
	}
	out := make([]RefreshArgs, 0, len(byRepo))
	for _, s := range byRepo {
		out = append(out, s.a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Owner+"/"+out[i].Repo < out[j].Owner+"/"+out[j].Repo })
	return out, nil
}
