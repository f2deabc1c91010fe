package ghport

import (
	"errors"
	"time"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/workflow"
)

// sentinels pairs each ghapp sentinel with the workflow's.
var sentinels = []workflow.Translation{
	{From: ghapp.ErrNotFound, To: workflow.ErrNotFound},
	{From: ghapp.ErrNoAccess, To: workflow.ErrNoAccess},
	{From: ghapp.ErrNotInstalled, To: workflow.ErrNotInstalled},
	{From: ghapp.ErrNotAFork, To: workflow.ErrNotAFork},
}

// Err is err in the workflow's terms: the same text and chain (errors.Is
// and errors.As still find ghapp's and go-github's errors), plus the
// workflow's sentinel for each ghapp sentinel it wraps (workflow.Translate),
// and GitHub's rate limits (ghapp.RateLimitOf: the one rule) as a *workflow.RateLimitError. Nil stays nil.
func Err(err error) error {
	if err == nil {
		return nil
	}
	err = workflow.Translate(err, sentinels...)
	var rl *workflow.RateLimitError
	if errors.As(err, &rl) {
		return err // already the workflow's
	}
	if limit, ok := ghapp.RateLimitOf(err, time.Now()); ok {
		err = &workflow.RateLimitError{Secondary: limit.Secondary, Reset: limit.Until, Err: err}
	}
	return err
}
