package workflow

import (
	"errors"
	"time"

	"github.com/google/go-github/v60/github"
)

// Bounds of a rate-limited stage's wait: at least a moment (a reset time
// already past, clock skew), at most an hour (GitHub's primary window).
const (
	minRateWait = time.Second
	maxRateWait = time.Hour
)

// rateLimited reports whether err is GitHub refusing for a rate limit the
// transport did not sit out (a reset further away than its longest wait),
// and how long the stage should wait before it runs again. Such a wait is
// not a failure: it must not use up the stage's attempts and end the run.
func rateLimited(err error) (time.Duration, bool) {
	var primary *github.RateLimitError
	var secondary *github.AbuseRateLimitError
	var wait time.Duration
	switch {
	case errors.As(err, &primary):
		wait = time.Until(primary.Rate.Reset.Time) + time.Second
	case errors.As(err, &secondary):
		wait = time.Minute
		if secondary.RetryAfter != nil {
			wait = *secondary.RetryAfter
		}
	default:
		return 0, false
	}
	return min(max(wait, minRateWait), maxRateWait), true
}
