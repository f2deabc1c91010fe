package ghport

import (
	"errors"
	"time"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/workflow"
)

// sentinels pairs each ghapp sentinel with the workflow's.
var sentinels = []struct{ gh, wf error }{
	{ghapp.ErrNotFound, workflow.ErrNotFound},
	{ghapp.ErrNoAccess, workflow.ErrNoAccess},
	{ghapp.ErrNotInstalled, workflow.ErrNotInstalled},
	{ghapp.ErrNotAFork, workflow.ErrNotAFork},
}

// Err is err in the workflow's terms: the same text and chain (errors.Is
// and errors.As still find ghapp's and go-github's errors), plus the
// workflow's sentinel for each ghapp sentinel it wraps, and GitHub's rate
// limits (ghapp.RateLimitOf: the one rule) as a *workflow.RateLimitError. Nil stays nil.
func Err(err error) error {
	if err == nil {
		return nil
	}
	var marks []error
	for _, s := range sentinels {
		if errors.Is(err, s.gh) && !errors.Is(err, s.wf) {
			marks = append(marks, s.wf)
		}
	}
	if len(marks) > 0 {
		err = &marked{err: err, marks: marks}
	}
	var rl *workflow.RateLimitError
	if errors.As(err, &rl) {
		return err // already the workflow's
	}
	if limit, ok := ghapp.RateLimitOf(err, time.Now()); ok {
		err = &workflow.RateLimitError{Secondary: limit.Secondary, Reset: limit.Until, Err: err}
	}
	return err
}

// marked is err that also answers errors.Is for marks; its text is err's.
type marked struct {
	err   error
	marks []error
}

func (e *marked) Error() string { return e.err.Error() }

func (e *marked) Unwrap() []error { return append([]error{e.err}, e.marks...) }
