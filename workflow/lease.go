package workflow

// A stage's issue lease and its cancellation while it runs.

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

// errRunEnded is the cancel cause of a stage whose run was cancelled.
var errRunEnded = errors.New("the run was cancelled")

// errLeaseLost is the cancel cause of a stage whose issue lease was taken
// over (its heartbeats stalled past LeaseTTL): another job may be working
// the issue now, so this one stops and is retried.
var errLeaseLost = errors.New("the issue's lease was lost")

// leaseHolder names a job attempt as an issue lease holder: a copy of a
// job that River's rescuer queued again while the first attempt still runs
// is another holder, so it waits instead of working the issue twice.
func leaseHolder(jobID int64, attempt int) string {
	return "job-" + strconv.FormatInt(jobID, 10) + "-" + strconv.Itoa(attempt)
}

// watchRun returns a context for the stage that renews the issue's lease
// every third of LeaseTTL (a crashed process stops renewing, so its issues
// are free again soon) and, when cancellable, is cancelled when the run is
// cancelled (/stop, unlabel, close), so a long agent call stops promptly
// instead of at the next checkpoint. It works the same on SQLite (no
// LISTEN/NOTIFY) and PostgreSQL: it polls the run row.
func (e *Engine) watchRun(ctx context.Context, run *Run, holder string, cancellable bool) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		watch := time.NewTicker(e.o.WatchInterval)
		defer watch.Stop()
		renew := time.NewTicker(e.o.LeaseTTL / 3)
		defer renew.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-renew.C:
				ok, err := e.d.Store.AcquireLease(ctx, run.IssueKey.row(), holder, e.o.LeaseTTL)
				if err == nil && !ok {
					cancel(errLeaseLost)
					return
				}
			case <-watch.C:
				if !cancellable {
					continue
				}
				if r, err := getRun(ctx, e.d.Store, run.ID); err == nil && r.State == lifecycle.Cancelled {
					cancel(errRunEnded)
					return
				}
			}
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}
