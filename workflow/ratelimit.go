package workflow

import (
	"errors"
	"time"
)

// Bounds of a rate-limited stage's wait: at least a moment (a reset time
// already past, clock skew), at most an hour (GitHub's primary window).
const (
	minRateWait = time.Second
	maxRateWait = time.Hour
)

// rateLimited reports whether err is GitHub refusing for a rate limit the
// transport did not sit out (a *RateLimitError, which the GitHub adapter
// makes of its client's), and how long the stage should wait before it
// runs again. Such a wait is not a failure: it must not use up the stage's
// attempts and end the run.
func rateLimited(err error) (time.Duration, bool) {
	var rl *RateLimitError
	if !errors.As(err, &rl) {
		return 0, false
	}
	return min(max(time.Until(rl.Reset), minRateWait), maxRateWait), true
}
