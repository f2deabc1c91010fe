package ghapp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Call describes one HTTP exchange with GitHub, as seen by the transport. It
// is handed to AppConfig.Observe (metrics) after every attempt.
type Call struct {
	Method string
	Path   string
	// Status is the HTTP status, or 0 when the request failed without one.
	Status int
	// Remaining is X-RateLimit-Remaining, or -1 when GitHub did not send it.
	Remaining int
	Duration  time.Duration
	// Retried is true when the transport is going to send the request again.
	Retried bool
}

// Transport defaults. GitHub asks integrators to leave at least a second
// between content-creating requests and to wait at least a minute after a
// secondary rate limit without Retry-After. A rate limit longer than
// DefaultMaxWait is the caller's to wait for (a job snoozes until then):
// no request, and no worker, is held for it.
const (
	DefaultWriteInterval = time.Second
	DefaultMaxRetries    = 4
	DefaultBackoff       = 500 * time.Millisecond
	DefaultMaxWait       = 10 * time.Second
	secondaryWait        = time.Minute
)

// transport is the RoundTripper under each installation's client. It paces
// the installation's requests (pace.go: none sent into the reserve but
// reserved ones), spaces writes, waits out rate limits when the wait is
// short enough (returning the rest as *RateLimitError, ratelimit.go), and
// retries 5xx answers with exponential backoff. It is safe for concurrent
// use.
type transport struct {
	base          http.RoundTripper
	writeInterval time.Duration
	maxRetries    int
	backoff       time.Duration
	maxWait       time.Duration
	observe       func(Call)
	now           func() time.Time
	sleep         func(ctx context.Context, d time.Duration) error
	// pace, when set, holds back requests once the installation's
	// primary limit is down to its reserve (pace.go).
	pace *pacer

	mu        sync.Mutex // guards nextWrite: concurrent jobs share one installation
	nextWrite time.Time
}

// RoundTrip implements http.RoundTripper. A rate limit it does not sit out
// (longer than maxWait, past the request's deadline, or after maxRetries),
// GitHub's or its own pacing's, is returned as a *RateLimitError, never as
// GitHub's answer.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		if err := t.admit(ctx, req); err != nil {
			return nil, err
		}
		if attempt == 0 && isWrite(req) {
			if err := t.sleep(ctx, t.reserveWrite()); err != nil {
				return nil, err
			}
		}
		r, err := rewind(req, attempt)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		resp, err := t.base.RoundTrip(r)
		call := Call{Method: req.Method, Path: req.URL.Path, Remaining: -1, Duration: time.Since(start)}
		var wait time.Duration
		retry := false
		var limited *RateLimitError
		switch {
		case err != nil:
			retry = attempt < t.maxRetries && ctx.Err() == nil
			wait = t.backoff << attempt
		default:
			call.Status = resp.StatusCode
			if t.pace != nil && paced(req) {
				t.pace.learn(resp.Header)
			}
			call.Remaining = headerInt(resp.Header, "X-RateLimit-Remaining", -1)
			if limited = rateLimit(resp, t.now()); limited != nil {
				wait = max(limited.Until.Sub(t.now()), 0)
				retry = attempt < t.maxRetries && wait <= t.maxWait && fits(ctx, wait)
			} else {
				wait, retry = t.decide(resp, attempt)
			}
		}
		call.Retried = retry
		if t.observe != nil {
			t.observe(call)
		}
		if !retry && limited == nil {
			return resp, err
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
		}
		if !retry {
			return nil, limited
		}
		if err := t.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// fits reports whether ctx leaves time to wait d and send again.
func fits(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return !ok || time.Until(deadline) > d+time.Second
}

// decide says whether to send a request GitHub answered (not for a rate
// limit) again, and after how long: 5xx answers, with backoff.
func (t *transport) decide(resp *http.Response, attempt int) (time.Duration, bool) {
	if attempt >= t.maxRetries {
		return 0, false
	}
	if code := resp.StatusCode; code >= 500 && code != http.StatusNotImplemented {
		return t.backoff << attempt, true
	}
	return 0, false
}

// reserveWrite books the next write slot and returns how long to wait for it.
func (t *transport) reserveWrite() time.Duration {
	if t.writeInterval <= 0 {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	at := t.nextWrite
	if at.Before(now) {
		at = now
	}
	t.nextWrite = at.Add(t.writeInterval)
	return at.Sub(now)
}

// isWrite reports whether req changes content on GitHub. Token requests are
// app-level and not spaced.
func isWrite(req *http.Request) bool {
	switch req.Method {
	case http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
		return !strings.HasSuffix(req.URL.Path, "/access_tokens")
	}
	return false
}

// rewind returns the request to send on the given attempt: the original the
// first time, a copy with a fresh body afterwards.
func rewind(req *http.Request, attempt int) (*http.Request, error) {
	if attempt == 0 || req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	if req.GetBody == nil {
		return nil, fmt.Errorf("retry %s %s: request body cannot be replayed", req.Method, req.URL.Path)
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, fmt.Errorf("retry %s %s: %w", req.Method, req.URL.Path, err)
	}
	r := req.Clone(req.Context())
	r.Body = body
	return r, nil
}

func headerInt(h http.Header, key string, def int) int {
	n, err := strconv.Atoi(strings.TrimSpace(h.Get(key)))
	if err != nil {
		return def
	}
	return n
}

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// TransportOptions configures NewTransport. Zero values get the defaults
// AppConfig's fields of the same names get.
type TransportOptions struct {
	// WriteInterval spaces POST/PATCH/PUT/DELETE requests: 0 means
	// DefaultWriteInterval, negative means no spacing (tests).
	WriteInterval time.Duration
	// MaxRetries bounds retries of 5xx answers and rate-limit waits (0
	// means DefaultMaxRetries, negative means none).
	MaxRetries int
	// Backoff is the first 5xx retry delay, doubled on each retry (0 means
	// DefaultBackoff).
	Backoff time.Duration
	// MaxWait is the longest rate-limit wait sat out; a longer one is
	// returned as a *RateLimitError (0 means DefaultMaxWait).
	MaxWait time.Duration
	// Observe, when set, is called after every attempt (metrics).
	Observe func(Call)
	// Now and Sleep replace the clock and the waits (tests); nil means
	// time.Now and a real wait that ends early with its context.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// NewTransport returns the rate-aware transport over base (the one under
// every installation's client, http.DefaultTransport when nil) for another
// forge's REST client: writes spaced, 5xx answers retried with backoff,
// 429 and Retry-After waited out up to MaxWait and returned as
// *RateLimitError past it. It has no installation pacing, which reads
// GitHub's X-RateLimit-* headers. Safe for concurrent use; one per client,
// so its writes are spaced together.
func NewTransport(base http.RoundTripper, o TransportOptions) http.RoundTripper {
	return newTransport(base, o)
}

// newTransport is the transport over base (http.DefaultTransport when nil)
// with o's zero values taken as the defaults: the one place they are
// applied, for the App's installations and for NewTransport.
func newTransport(base http.RoundTripper, o TransportOptions) *transport {
	if base == nil {
		base = http.DefaultTransport
	}
	switch {
	case o.WriteInterval == 0:
		o.WriteInterval = DefaultWriteInterval
	case o.WriteInterval < 0:
		o.WriteInterval = 0
	}
	switch {
	case o.MaxRetries == 0:
		o.MaxRetries = DefaultMaxRetries
	case o.MaxRetries < 0:
		o.MaxRetries = 0
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = sleepCtx
	}
	return &transport{base: base, writeInterval: o.WriteInterval, maxRetries: o.MaxRetries, backoff: o.Backoff,
		maxWait: o.MaxWait, observe: o.Observe, now: o.Now, sleep: o.Sleep}
}
