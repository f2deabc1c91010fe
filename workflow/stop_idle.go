package workflow

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/store"
)

// kindIdleStop marks the reply to a /stop that found nothing running.
const kindIdleStop = "stop-idle"

// nothingRunning is the reply to a /stop on an issue without an open run.
const nothingRunning = "Nothing is running for this issue, so there is nothing to stop. " +
	"Add the trigger label or comment `/spec` to start a run."

// IdleStopArgs is the job that answers a /stop comment that found no open
// run. It is unique per comment in every state River keeps, and the reply
// carries the comment's id in its marker, so a redelivered /stop is
// answered once.
type IdleStopArgs struct {
	InstallationID int64  `json:"installation_id"`
	Owner          string `json:"owner" river:"unique"`
	Repo           string `json:"repo" river:"unique"`
	Issue          int    `json:"issue" river:"unique"`
	CommentID      int64  `json:"comment_id" river:"unique"`
	Sender         string `json:"sender"`
}

// Kind names the job kind in River.
func (IdleStopArgs) Kind() string { return "issuesmith_idle_stop" }

// InsertOpts: one reply per /stop comment, including after it completed.
func (IdleStopArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: reportAttempts, UniqueOpts: store.UniqueUntilDone()}
}

// stop cancels the issue's open run or, when there is none, queues the
// reply saying so.
func (e *Engine) stop(ctx context.Context, c *completion, ev Event) error {
	err := e.cancel(ctx, c, ev.key(), "@"+ev.Sender+" asked to stop (/stop)", false)
	if !errors.Is(err, ErrIgnored) {
		return err
	}
	if _, err := openRunFor(ctx, e.d.Store, ev.key()); err == nil {
		return ErrIgnored // a run opened meanwhile: "nothing is running" would be wrong
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return e.queueJob(ctx, c, IdleStopArgs{InstallationID: ev.InstallationID, Owner: ev.Owner, Repo: ev.Repo,
		Issue: ev.Number, CommentID: ev.CommentID, Sender: ev.Sender}, nil)
}

type idleStopWorker struct {
	river.WorkerDefaults[IdleStopArgs]
	e *Engine
}

// Timeout bounds the reply job.
func (w *idleStopWorker) Timeout(*river.Job[IdleStopArgs]) time.Duration { return time.Minute }

// Work posts (or finds already posted) the reply to the /stop comment.
func (w *idleStopWorker) Work(ctx context.Context, job *river.Job[IdleStopArgs]) error {
	a := job.Args
	gh, err := w.e.d.GitHub.Client(ctx, a.InstallationID)
	if err != nil {
		return err
	}
	body := nothingRunning
	if a.Sender != "" {
		body = "@" + a.Sender + " " + body
	}
	marker := ghtext.Marker{Kind: kindIdleStop, Run: "c" + strconv.FormatInt(a.CommentID, 10)}
	_, err = gh.UpsertComment(ctx, a.Owner, a.Repo, a.Issue, marker, body)
	return err
}
