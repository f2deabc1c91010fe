package workflow

import (
	"errors"
	"time"
)

// What the GitHub port's errors wrap when the workflow acts on them. The
// adapter (workflow/ghport) adds them to its client's errors and keeps the
// original error's text and chain.
var (
	// ErrNotFound: the thing asked for does not exist (no comment with
	// the marker, no pull request for the branch, no file at the path, a
	// 404).
	ErrNotFound = errors.New("not found")
	// ErrNoAccess: the installation lacks the permission (an Actions job
	// log without actions: read).
	ErrNoAccess = errors.New("the App's installation lacks the permission")
	// ErrNotInstalled: with push: fork, the App is not installed on the
	// fork owner's account.
	ErrNotInstalled = errors.New("the App is not installed on the fork owner's account")
	// ErrNotAFork: with push: fork, the fork owner's repository of that
	// name is no usable fork.
	ErrNotAFork = errors.New("no usable fork")
)

// RateLimitError is GitHub refusing for a rate limit its client did not
// sit out (a reset further away than the client's longest wait). A stage
// refused so waits for the reset instead of failing (ratelimit.go).
type RateLimitError struct {
	// Secondary is set for GitHub's secondary (abuse) limit, which
	// names no reset time; Reset is the primary limit's.
	Secondary bool
	Reset     time.Time
	// RetryAfter is a secondary limit's Retry-After, nil when GitHub
	// gave none.
	RetryAfter *time.Duration
	Err        error // the client's error
}

func (e *RateLimitError) Error() string { return e.Err.Error() }
func (e *RateLimitError) Unwrap() error { return e.Err }
