package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/store"
)

// The kinds of work the loop guard counts per issue and hour.
const (
	loopRun    = "run"
	loopRevise = "revise"
	loopCI     = "ci"
)

// loopWindow is the loop guard's window.
const loopWindow = time.Hour

// LoopError is work the loop guard refused: the issue had its hour's
// share of that kind (Options.Limits.LoopMaxPerHour), so an exchange with
// another bot or a flapping CI cannot keep spending. It is an ErrIgnored.
type LoopError struct {
	Kind string
	Max  int
	key  IssueKey // the issue whose share is spent
}

// Error says what was refused and what to change.
func (e *LoopError) Error() string {
	return fmt.Sprintf("the loop guard: this issue had %d %s in the last hour, the most ISSUESMITH_LOOP_MAX_PER_HOUR allows; "+
		"it takes more after the hour", e.Max, map[string]string{loopRun: "runs", loopRevise: "revise rounds", loopCI: "CI rounds"}[e.Kind])
}

// Unwrap makes a LoopError an ErrIgnored.
func (e *LoopError) Unwrap() error { return ErrIgnored }

// loopGuard records, in tx, that work of kind starts for the issue, or
// refuses it with a *LoopError when the issue had its hour's share. Without
// Options.Limits nothing is counted.
func (e *Engine) loopGuard(ctx context.Context, tx trigger, key IssueKey, kind string) error {
	if e.o.Limits == nil || e.o.Limits.LoopMaxPerHour <= 0 {
		return nil
	}
	max := e.o.Limits.LoopMaxPerHour
	ok, _, err := tx.Trigger(ctx, key.row(), kind, loopWindow, max)
	if err != nil {
		return err
	}
	if !ok {
		e.log.Warn("loop guard: work refused", "issue", key.String(), "kind", kind, "max_per_hour", max)
		e.observe("loop_guard", kind)
		return &LoopError{Kind: kind, Max: max, key: key}
	}
	return nil
}

// trigger is where the loop guard counts: a *store.Tx (the transaction
// that queues the work) or the *store.Store.
type trigger interface {
	Trigger(ctx context.Context, key store.IssueKey, kind string, window time.Duration, max int) (bool, int, error)
}

// insertGuarded queues args for run in one transaction with the loop
// guard's count of kind.
func (e *Engine) insertGuarded(ctx context.Context, c *completion, run *Run, kind string, args StageArgs) error {
	return e.commit(ctx, c, func(tx *store.Tx) error {
		if err := e.loopGuard(ctx, tx, run.IssueKey, kind); err != nil {
			return err
		}
		return e.insertTx(ctx, tx, run, args)
	})
}

// kindLoop marks the bot's one loop-guard comment on an issue or pull
// request: edited in place, never posted twice.
const kindLoop = "loop-guard"

// sayLoop tells the issue or pull request where ev asked for work that
// the loop guard refused it (err holds a *LoopError), once an hour per
// issue and kind: later refusals in the hour are silent, so an exchange
// with another bot gets one answer, not one per message. The comment is
// the one marked loop-guard comment there, edited in place. CI rounds say
// it in their own comment. Best effort: a failure is logged, the work
// stays refused.
func (e *Engine) sayLoop(ctx context.Context, ev Event, err error) {
	var le *LoopError
	if !errors.As(err, &le) || le.Kind == loopCI || ev.Number == 0 {
		return
	}
	ok, _, err := e.d.Store.Trigger(ctx, le.key.row(), le.Kind+"-said", loopWindow, 1)
	if err != nil {
		e.log.Warn("loop guard: not said", "issue", le.key.String(), "err", err)
		return
	}
	if !ok {
		return // said within the hour
	}
	gh, err := e.d.GitHub.Client(ctx, ev.InstallationID)
	if err == nil {
		_, err = gh.UpsertComment(ctx, ev.Owner, ev.Repo, ev.Number, ghtext.Marker{Kind: kindLoop}, renderLoopGuard(le))
	}
	if err != nil {
		e.log.Warn("loop guard: not said", "issue", le.key.String(), "number", ev.Number, "err", err)
		return
	}
	e.observe("loop_guard", le.Kind+"_said")
}
