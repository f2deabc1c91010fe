package workflow

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// How long a job refused by a rate limit waits: until the time GitHub
// allows the request again, always between a second and an hour.
func TestRateLimitedWaits(t *testing.T) {
	t.Parallel()
	cause := errors.New("403 rate limit")
	for _, c := range []struct {
		name string
		err  *RateLimitError
		min  time.Duration
		max  time.Duration
	}{
		{"primary", &RateLimitError{Reset: time.Now().Add(10 * time.Minute), Err: cause}, 10*time.Minute - time.Second, 10 * time.Minute},
		{"primary past", &RateLimitError{Reset: time.Now().Add(-time.Minute), Err: cause}, time.Second, time.Second},
		{"primary far", &RateLimitError{Reset: time.Now().Add(5 * time.Hour), Err: cause}, time.Hour, time.Hour},
		{"secondary", &RateLimitError{Secondary: true, Reset: time.Now().Add(90 * time.Second), Err: cause}, 89 * time.Second, 90 * time.Second},
		{"secondary retry-after 0", &RateLimitError{Secondary: true, Reset: time.Now(), Err: cause}, time.Second, time.Second},
	} {
		wait, ok := rateLimited(fmt.Errorf("stage: %w", c.err))
		if !ok || wait < c.min || wait > c.max {
			t.Errorf("%s: wait %v, %v; want %v..%v", c.name, wait, ok, c.min, c.max)
		}
	}
	if _, ok := rateLimited(cause); ok {
		t.Error("a plain error is no rate limit")
	}
}
