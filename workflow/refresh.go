package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/store"
)

// Summarizer refreshes the file-summary cache of a checkout (summaries with
// the summarizer model over the store's cache, adapted in agents/). The
// explorer then finds every unchanged file's summary in the cache. cfg is
// the repository's .github/issuesmith.yml (defaults when it has none): its
// summarizer role chooses the model, as the other roles do theirs.
type Summarizer interface {
	Refresh(ctx context.Context, ws *repo.Workspace, cfg *config.Repo) (Spend, error)
}

// RefreshArgs is the job that refreshes a repository's summaries after a
// push. It is unique per repository while queued, so a burst of pushes
// refreshes once. River counts a running job as a duplicate too, so a push
// during a refresh queues the follow-up (Again) instead: that job waits
// for the running one and then refreshes once more (see pushed).
type RefreshArgs struct {
	InstallationID int64  `json:"installation_id"`
	Owner          string `json:"owner" river:"unique"`
	Repo           string `json:"repo" river:"unique"`
	// Again marks the follow-up of a refresh that was running when a push
	// came: its own unique key, so one may wait while the other runs.
	Again bool `json:"again,omitempty" river:"unique"`
}

// Kind names the job kind in River.
func (RefreshArgs) Kind() string { return "issuesmith_refresh" }

// InsertOpts: one refresh per repository and key, waiting or running
// (River requires running among the unique states; pushed queues the
// follow-up of a running one under the other key).
func (RefreshArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, UniqueOpts: store.UniqueWhileQueued()}
}

func (e *Engine) pushed(ctx context.Context, c *completion, ev Event) error {
	if e.d.Summarizer == nil {
		return ErrIgnored
	}
	if err := e.queueRefresh(ctx, RefreshArgs{InstallationID: ev.InstallationID, Owner: ev.Owner, Repo: ev.Repo}); err != nil {
		return err
	}
	// Known from now on, so the nightly refresh covers it. A failure
	// fails the event, whose retry finds the refresh already queued.
	return e.d.Store.NoteRepo(ctx, ev.InstallationID, ev.Owner, ev.Repo)
}

type refreshWorker struct {
	river.WorkerDefaults[RefreshArgs]
	e *Engine
}

// Timeout bounds a refresh: a large repository's first summaries take a
// while, later ones only summarise changed files.
func (w *refreshWorker) Timeout(*river.Job[RefreshArgs]) time.Duration { return time.Hour }

// Work checks out the default branch and refreshes its summaries with the
// model settings of the branch's .github/issuesmith.yml. An invalid file
// refreshes nothing (nothing runs until it is fixed) and is not retried.
func (w *refreshWorker) Work(ctx context.Context, job *river.Job[RefreshArgs]) error {
	e, a := w.e, job.Args
	if busy, err := e.refreshRunning(ctx, a, job.ID); err != nil || busy {
		if err != nil {
			return err
		}
		// A refresh may take many minutes: look again every half
		// minute or so (LeaseWait is 5s by default), not every poll.
		e.observe("refresh", "snoozed")
		return river.JobSnooze(6*e.o.LeaseWait + time.Duration(job.ID%5)*e.o.LeaseWait)
	}
	gh, err := e.d.GitHub.Client(ctx, a.InstallationID)
	if err != nil {
		return err
	}
	r, err := gh.Repository(ctx, a.Owner, a.Repo)
	if err != nil {
		return err
	}
	cfg, err := readRepoConfig(ctx, gh, a.Owner, a.Repo, r.DefaultBranch)
	var perm errPermanent
	if errors.As(err, &perm) {
		e.log.Warn("summary refresh skipped", "repo", a.Owner+"/"+a.Repo, "err", err)
		e.observe("refresh", "failed")
		return nil
	}
	if err != nil {
		return err
	}
	ref := RepoRef{InstallationID: a.InstallationID, Owner: a.Owner, Repo: a.Repo, Base: r.DefaultBranch,
		CloneURL: r.CloneURL, Job: fmt.Sprintf("refresh-job%d", job.ID)}
	wt, err := e.d.Git.Checkout(ctx, ref, "")
	if err != nil {
		return fmt.Errorf("check out %s/%s: %w", a.Owner, a.Repo, err)
	}
	defer wt.Close()
	sp, err := e.d.Summarizer.Refresh(e.refreshMeter(ctx, a, cfg), wt.Workspace(), cfg)
	if errors.Is(err, llm.ErrSpendLimit) {
		e.log.Warn("summary refresh stopped at a spending limit", "repo", a.Owner+"/"+a.Repo, "err", err)
		err = nil // the next refresh after the window tries again; retrying now would only be refused
	}
	if e.o.Usage != nil {
		e.o.Usage(llm.RoleSummarizer, sp.Usage, e.priced(llm.RoleSummarizer, sp))
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		e.log.Warn("summary refresh failed", "repo", a.Owner+"/"+a.Repo, "err", err)
	}
	e.observe("refresh", map[bool]string{true: "ok", false: "failed"}[err == nil])
	return err
}
