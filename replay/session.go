package replay

import (
	"context"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/llm"
)

// RunSession records one instance's run (`bot replay --sessions`): the
// same recording a run of the App keeps, so what a run stores can be
// measured on many instances and read with `bot sessions`.
type RunSession interface {
	// Model wraps the run's model so each call is recorded.
	Model(m llm.Model) llm.Model
	// Stage hears agents.Local's stage announcements.
	Stage(ctx context.Context, announced string)
	// Code records the coder's edits and checks.
	Code(ctx context.Context, res *coder.Result)
	// End closes the session in state and returns the bytes it stored.
	End(ctx context.Context, state string) (int64, error)
}

// SessionOpener starts the session of an instance's run.
type SessionOpener func(ctx context.Context, in *Instance) (RunSession, error)
