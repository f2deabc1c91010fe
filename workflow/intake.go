package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
)

// IntakeArgs is one accepted webhook delivery's event, queued in the same
// transaction that records the delivery (Accept); its job hands the event
// to Handle. A delivery is therefore either recorded with its work queued,
// or not recorded at all (GitHub's redelivery is then handled).
type IntakeArgs struct {
	Event Event `json:"event"`
}

// Kind names the job kind in River.
func (IntakeArgs) Kind() string { return "issuesmith_intake" }

// InsertOpts: Handle's database writes may fail for a while (an outage);
// River retries with its backoff.
func (IntakeArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 20} }

type intakeWorker struct {
	river.WorkerDefaults[IntakeArgs]
	e *Engine
}

// Timeout bounds one Handle.
func (w *intakeWorker) Timeout(*river.Job[IntakeArgs]) time.Duration { return 2 * time.Minute }

// Work hands the event to Handle; an event with nothing to do is done.
func (w *intakeWorker) Work(ctx context.Context, job *river.Job[IntakeArgs]) error {
	ev := job.Args.Event
	// Handle's writes and this job's completion commit together.
	err := w.e.handle(ctx, completing(job), ev)
	if errors.Is(err, ErrIgnored) {
		w.e.log.Info("delivery needs nothing", "delivery", ev.Delivery, "kind", ev.Kind, "reason", err.Error())
		w.e.sayLoop(ctx, ev, err)
		return nil
	}
	return err
}

// Accept records a delivery's keys (id and body, in their own key spaces)
// and queues its event in one transaction. dup is the key already recorded
// ("" when accepted); then nothing was written.
func (e *Engine) Accept(ctx context.Context, keys []string, ev Event) (dup string, err error) {
	return e.queue.Accept(ctx, ev.GitHubEvent, keys, IntakeArgs{Event: ev}, nil)
}

// Recorded returns the first of keys already recorded ("" when none): the
// webhook handler's read-only check before it spends a GitHub call on a
// delivery that is a repeat (Accept still decides, atomically).
func (e *Engine) Recorded(ctx context.Context, keys []string) (string, error) {
	return e.d.Store.FirstRecorded(ctx, keys)
}

// checkWrite is Handle's first step for an event marked CheckWrite: the
// sender must be able to write to the repository. GitHub's answer decides;
// an installation GitHub no longer knows (the App was uninstalled) asks
// nothing; a rate limit is returned as it is (the intake job snoozes until
// the reset), any other failure too (River tries again).
func (e *Engine) checkWrite(ctx context.Context, ev Event) error {
	gh, err := e.d.GitHub.Client(ctx, ev.InstallationID)
	if err == nil {
		var ok bool
		if ok, err = gh.CanWrite(ctx, ev.Owner, ev.Repo, ev.Sender); err == nil && !ok {
			e.observe("intake", "denied")
			return fmt.Errorf("%w (%s on %s/%s)", ErrNoWrite, ev.Sender, ev.Owner, ev.Repo)
		}
	}
	var gone interface{ InstallationGone() bool }
	if errors.As(err, &gone) && gone.InstallationGone() {
		return fmt.Errorf("%w: GitHub does not know installation %d (the App was uninstalled?): %v", ErrIgnored, ev.InstallationID, err)
	}
	if err != nil {
		return fmt.Errorf("check that %s may write to %s/%s: %w", ev.Sender, ev.Owner, ev.Repo, err)
	}
	return nil
}
