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

// Translation pairs a forge client's sentinel error with the workflow's.
type Translation struct{ From, To error }

// Translate is how an adapter hands its client's errors to the workflow:
// err, with its text and chain (errors.Is and errors.As still find the
// client's errors), that also answers errors.Is for each translation's To
// whose From it wraps. Nil stays nil.
func Translate(err error, ts ...Translation) error {
	if err == nil {
		return nil
	}
	var marks []error
	for _, t := range ts {
		if errors.Is(err, t.From) && !errors.Is(err, t.To) {
			marks = append(marks, t.To)
		}
	}
	if len(marks) == 0 {
		return err
	}
	return &translated{err: err, marks: marks}
}

// translated is err that also answers errors.Is for marks; its text is err's.
type translated struct {
	err   error
	marks []error
}

func (e *translated) Error() string   { return e.err.Error() }
func (e *translated) Unwrap() []error { return append([]error{e.err}, e.marks...) }

// RateLimitError is GitHub refusing for a rate limit (403 or 429, primary
// or secondary) its client did not sit out. A job refused so waits until
// Reset with River's snooze (ratelimit.go): never a failed attempt.
type RateLimitError struct {
	// Secondary is set for GitHub's secondary limit.
	Secondary bool
	// Reset is when GitHub allows the request again: the primary
	// limit's reset, or the secondary limit's Retry-After (a minute when
	// GitHub named none).
	Reset time.Time
	Err   error // the client's error
}

func (e *RateLimitError) Error() string { return e.Err.Error() }
func (e *RateLimitError) Unwrap() error { return e.Err }
