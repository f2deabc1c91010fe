package webhook

import (
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"golang.org/x/sync/semaphore"
)

// DefaultMaxInFlight bounds the request-body bytes all webhook requests may
// hold at once (four bodies of GitHub's maximum size).
const DefaultMaxInFlight = 4 * DefaultMaxBody

// RetryAfter is the Retry-After (seconds) of a request shed for lack of
// body budget.
const RetryAfter = 5

// ResultShed is the result of a request answered 503 because the body
// budget was spent.
const ResultShed = "shed"

// UnverifiedEvent is the event label of requests the limiter answers: their
// X-GitHub-Event header is unauthenticated, so it is not used as a label.
const UnverifiedEvent = "unverified"

// Limiter bounds the bytes of request bodies in flight through the webhook
// handler, before any of them is read: a request reserves its
// Content-Length (the body cap when the length is unknown) from a byte
// budget and gets 503 with Retry-After when the budget is spent, and 413
// when it declares more than the cap. A flood of large unsigned bodies
// therefore costs at most the budget in memory, whatever their number.
type Limiter struct {
	next    http.Handler
	sem     *semaphore.Weighted
	maxBody int64
	log     *slog.Logger
	observe func(event, result string)
}

// NewLimiter wraps next (the webhook Handler). budget below maxBody is
// raised to maxBody, so one body of the largest allowed size always fits;
// zero values take DefaultMaxInFlight and DefaultMaxBody. observe, when
// set, counts each request the limiter answers (UnverifiedEvent, result).
func NewLimiter(next http.Handler, budget, maxBody int64, log *slog.Logger, observe func(event, result string)) *Limiter {
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	if budget <= 0 {
		budget = DefaultMaxInFlight
	}
	budget = max(budget, maxBody)
	if log == nil {
		log = slog.Default()
	}
	return &Limiter{next: next, sem: semaphore.NewWeighted(budget), maxBody: maxBody, log: log, observe: observe}
}

// ServeHTTP reserves the body's bytes, serves the request and releases them.
func (l *Limiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := r.ContentLength
	if n > l.maxBody {
		l.reject(w, r, http.StatusRequestEntityTooLarge, ResultTooLarge, fmt.Sprintf("declared body of %d bytes is over %d", n, l.maxBody))
		return
	}
	if n < 0 {
		n = l.maxBody // unknown length: reserve the cap; the handler reads no more
	}
	if !l.sem.TryAcquire(n) {
		w.Header().Set("Retry-After", strconv.Itoa(RetryAfter))
		l.reject(w, r, http.StatusServiceUnavailable, ResultShed, "too many request bytes in flight; retry later")
		return
	}
	defer l.sem.Release(n)
	l.next.ServeHTTP(w, r)
}

// reject answers without reading the body, and closes the connection so an
// unread body is not drained.
func (l *Limiter) reject(w http.ResponseWriter, r *http.Request, code int, result, msg string) {
	event := r.Header.Get("X-GitHub-Event")
	if l.observe != nil {
		l.observe(UnverifiedEvent, result)
	}
	l.log.Warn("webhook", "status", code, "result", result, "reason", msg,
		"delivery", r.Header.Get("X-GitHub-Delivery"), "event", event, "remote", r.RemoteAddr)
	w.Header().Set("Connection", "close")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintf(w, "%s: %s\n", result, msg)
}
