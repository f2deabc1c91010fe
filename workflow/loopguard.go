package workflow

import (
	"context"
	"fmt"
	"time"

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
}

// Error says what was refused and what to change.
func (e *LoopError) Error() string {
	return fmt.Sprintf("the loop guard: this issue had %d %s in the last hour, the most ISSUESMITH_LOOP_MAX_PER_HOUR allows; "+
		"it takes more after the hour", e.Max, map[string]string{loopRun: "runs", loopRevise: "revise rounds", loopCI: "CI rounds"}[e.Kind])
}

// Unwrap makes a LoopError an ErrIgnored.
func (e *LoopError) Unwrap() error { return ErrIgnored }

// loopGuard records that work of kind starts for the issue, or refuses
// it with a *LoopError when the issue had its hour's share. Without
// Options.Limits nothing is counted.
func (e *Engine) loopGuard(ctx context.Context, key store.IssueKey, kind string) error {
	if e.o.Limits == nil || e.o.Limits.LoopMaxPerHour <= 0 {
		return nil
	}
	max := e.o.Limits.LoopMaxPerHour
	ok, _, err := e.d.Store.Trigger(ctx, key, kind, loopWindow, max)
	if err != nil {
		return err
	}
	if !ok {
		e.log.Warn("loop guard: work refused", "issue", key.String(), "kind", kind, "max_per_hour", max)
		e.observe("loop_guard", kind)
		return &LoopError{Kind: kind, Max: max}
	}
	return nil
}
