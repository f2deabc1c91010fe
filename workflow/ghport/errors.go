package ghport

import (
	"errors"

	"github.com/google/go-github/v60/github"

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
// limits as a *workflow.RateLimitError. Nil stays nil.
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
	var primary *github.RateLimitError
	var secondary *github.AbuseRateLimitError
	var rl *workflow.RateLimitError
	switch {
	case errors.As(err, &rl):
		// already the workflow's
	case errors.As(err, &primary):
		err = &workflow.RateLimitError{Reset: primary.Rate.Reset.Time, Err: err}
	case errors.As(err, &secondary):
		err = &workflow.RateLimitError{Secondary: true, RetryAfter: secondary.RetryAfter, Err: err}
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
