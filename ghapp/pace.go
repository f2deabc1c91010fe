package ghapp

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// MinReserve is the fewest requests of an installation's primary limit the
// transport keeps for reserved requests (WithReserve); Reserve says how
// many it keeps for a given limit.
const MinReserve = 50

// Reserve is how many requests of an installation's primary (REST "core")
// limit the transport keeps for reserved requests: 2% of the limit, at
// least MinReserve — 100 of an installation's usual 5,000 an hour, 300 of
// 15,000. Saying a run waits costs two requests (the progress comment is
// found, then edited), so the reserve lets a few dozen runs say so and
// write their last progress in one window; it is small enough that pacing
// stops the bot's own work at most 2% early.
func Reserve(limit int) int { return max(MinReserve, limit/50) }

// reserveKey marks a context whose requests may use the reserve.
type reserveKey struct{}

// WithReserve returns ctx whose requests to GitHub may use the requests an
// installation's transport keeps in reserve (Reserve): the bot's own
// progress comment, above all the line saying a run waits for the limit.
// Every other request is held back once the installation's remaining
// requests fall to the reserve.
func WithReserve(ctx context.Context) context.Context {
	return context.WithValue(ctx, reserveKey{}, true)
}

// reserved reports whether ctx was made by WithReserve.
func reserved(ctx context.Context) bool { v, _ := ctx.Value(reserveKey{}).(bool); return v }

// pacer is one installation's primary limit as the transport last learned
// it from GitHub's X-RateLimit-* headers, less the requests sent since.
// The zero pacer knows nothing and holds nothing back. It is safe for
// concurrent use.
type pacer struct {
	mu        sync.Mutex
	limit     int
	remaining int
	until     time.Time // the window's end (its reset and a second of margin); zero: unknown
}

// admit books one request sent at now, or refuses it and returns when the
// window ends: a request that may not use the reserve is refused once the
// remaining requests are down to it, a reserved one once none remain.
// A window that ended is unknown until GitHub answers again.
func (p *pacer) admit(now time.Time, useReserve bool) (held *RateLimitError) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.until.IsZero() || !now.Before(p.until) {
		return nil
	}
	floor := Reserve(p.limit)
	if useReserve {
		floor = 0
	}
	if p.remaining <= floor {
		msg := fmt.Sprintf("held back, not sent: %d of the installation's %d requests are left until the reset", p.remaining, p.limit)
		if !useReserve {
			msg += fmt.Sprintf(", and the last %d are kept for the bot's progress comments", floor)
		}
		return &RateLimitError{Held: true, Until: p.until, Message: msg}
	}
	p.remaining-- // in flight: GitHub's next answer counts it
	return nil
}

// learn takes an answer's X-RateLimit-* headers: a new window (another
// reset) replaces what was known; within the same window the lower count
// wins, so answers arriving out of order and requests still in flight
// never raise it. Answers without the headers, or for another resource
// than "core" (GraphQL's and search's limits are separate), change nothing.
func (p *pacer) learn(h http.Header) {
	limit := headerInt(h, "X-RateLimit-Limit", -1)
	remaining := headerInt(h, "X-RateLimit-Remaining", -1)
	reset := headerInt(h, "X-RateLimit-Reset", -1)
	if limit <= 0 || remaining < 0 || reset <= 0 {
		return
	}
	if r := h.Get("X-RateLimit-Resource"); r != "" && r != "core" {
		return
	}
	until := time.Unix(int64(reset), 0).Add(time.Second) // one-second resolution
	p.mu.Lock()
	defer p.mu.Unlock()
	if until.Equal(p.until) {
		p.remaining = min(p.remaining, remaining)
	} else {
		p.until, p.remaining = until, remaining
	}
	p.limit = limit
}

// paced reports whether req counts against the installation's primary
// (core) limit: not the App's own token request, GraphQL or search.
func paced(req *http.Request) bool {
	p := req.URL.Path
	return !strings.HasSuffix(p, "/access_tokens") && !strings.HasSuffix(p, "/graphql") && !strings.Contains(p, "/search/")
}

// admit lets req go when the installation's pacing allows it: a hold
// shorter than maxWait (and within the request's deadline) is sat out,
// a longer one is returned as a *RateLimitError saying until when.
func (t *transport) admit(ctx context.Context, req *http.Request) error {
	if t.pace == nil || !paced(req) {
		return nil
	}
	for try := 0; ; try++ {
		held := t.pace.admit(t.now(), reserved(ctx))
		if held == nil {
			return nil
		}
		held.Method, held.Path = req.Method, req.URL.Path
		wait := held.Until.Sub(t.now())
		if try > 0 || wait > t.maxWait || !fits(ctx, wait) {
			return held
		}
		if err := t.sleep(ctx, wait); err != nil {
			return err
		}
	}
}
