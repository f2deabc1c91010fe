package giteaport

import (
	"errors"
	"time"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/gitea"
	"github.com/issuesmith/issuesmith/workflow"
)

// Err is err in the workflow's terms: its text and chain kept, Gitea's 404
// also a workflow.ErrNotFound, 401/403 a workflow.ErrNoAccess, and a rate
// limit (a 429 the transport did not wait out) a *workflow.RateLimitError.
func Err(err error) error {
	if err == nil {
		return nil
	}
	var marks []error
	if errors.Is(err, gitea.ErrNotFound) && !errors.Is(err, workflow.ErrNotFound) {
		marks = append(marks, workflow.ErrNotFound)
	}
	if errors.Is(err, gitea.ErrForbidden) && !errors.Is(err, workflow.ErrNoAccess) {
		marks = append(marks, workflow.ErrNoAccess)
	}
	if len(marks) > 0 {
		err = &marked{err: err, marks: marks}
	}
	var rl *workflow.RateLimitError
	if errors.As(err, &rl) {
		return err
	}
	if limit, ok := ghapp.RateLimitOf(err, time.Now()); ok {
		err = &workflow.RateLimitError{Secondary: limit.Secondary, Reset: limit.Until, Err: err}
	}
	return err
}

type marked struct {
	err   error
	marks []error
}

func (e *marked) Error() string   { return e.err.Error() }
func (e *marked) Unwrap() []error { return append([]error{e.err}, e.marks...) }
