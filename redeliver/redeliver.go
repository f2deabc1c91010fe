package redeliver

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/webhook"
)

// Log is the App's webhook delivery log (*ghapp.App).
type Log interface {
	HookAttempts(ctx context.Context, since time.Time, limit int) ([]ghapp.HookAttempt, error)
	Redeliver(ctx context.Context, id int64) error
}

// Recorded tells whether the bot recorded a delivery GUID (*store.Store).
type Recorded interface {
	HasDelivery(ctx context.Context, id string) (bool, error)
}

// Options bound one pass.
type Options struct {
	// Since is how far back the log is read: the pass reads every attempt
	// of that window, however many (GitHub pages them by 100).
	Since time.Time
	// Max bounds the redeliveries asked in one pass; 0 asks for every
	// missed delivery of the window, as fast as Pause allows, until ctx's
	// deadline is near (the rest wait for the next pass, as Deferred).
	Max int
	// ScanLimit bounds the attempts read; 0 reads the whole window.
	ScanLimit int
	// Pause is the wait between redelivery requests (default 400 ms):
	// GitHub's secondary rate limits allow 900 points a minute and a write
	// costs 5, so a long pass stays under 180 writes a minute.
	Pause time.Duration
	// MaxAttempts: a delivery with this many failed attempts in the log is
	// given up (default 5); with passes every few minutes that backs off
	// a delivery that keeps failing instead of asking for it forever.
	MaxAttempts int
}

// Report is what one pass saw and did.
type Report struct {
	Attempts  int      // attempts read from the log
	Failed    int      // delivery GUIDs with no successful attempt
	Recorded  int      // of those, GUIDs the store has recorded: not asked again
	Asked     []string // GUIDs whose redelivery was asked
	Deferred  int      // failed and unrecorded, left for the next pass (Max reached)
	Recovered int      // GUIDs that failed at first and have a successful attempt since
	Refused   int      // failed only with 4xx answers (bad signature, malformed): redelivery would not help
	GivenUp   int      // failed MaxAttempts times: not asked again
}

// Pass runs one reconciliation.
func Pass(ctx context.Context, log Log, rec Recorded, o Options) (Report, error) {
	if o.ScanLimit <= 0 {
		o.ScanLimit = math.MaxInt
	}
	if o.Pause <= 0 {
		o.Pause = 400 * time.Millisecond
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 5
	}
	attempts, err := log.HookAttempts(ctx, o.Since, o.ScanLimit)
	rep := Report{Attempts: len(attempts)}
	if err != nil {
		return rep, err
	}
	for _, g := range failedGUIDs(attempts, &rep) {
		if g.attempts >= o.MaxAttempts {
			rep.GivenUp++
			continue
		}
		seen, err := rec.HasDelivery(ctx, webhook.IDKey(g.guid))
		if err != nil {
			return rep, err
		}
		if seen {
			rep.Recorded++
			continue
		}
		if (o.Max > 0 && len(rep.Asked) >= o.Max) || nearDeadline(ctx, o.Pause) {
			rep.Deferred++
			continue
		}
		if len(rep.Asked) > 0 {
			select {
			case <-ctx.Done():
				return rep, ctx.Err()
			case <-time.After(o.Pause):
			}
		}
		if err := log.Redeliver(ctx, g.newest); err != nil {
			return rep, fmt.Errorf("redeliver %s: %w", g.guid, err)
		}
		rep.Asked = append(rep.Asked, g.guid)
	}
	return rep, nil
}

// deadlineMargin is the time a pass keeps before its deadline: it stops
// asking then, so that it ends with a report rather than a cancellation.
const deadlineMargin = 5 * time.Second

// nearDeadline reports whether ctx ends within one more redelivery.
func nearDeadline(ctx context.Context, pause time.Duration) bool {
	d, ok := ctx.Deadline()
	return ok && time.Until(d) < pause+deadlineMargin
}

type failed struct {
	guid     string
	newest   int64 // the newest attempt's id, the one redelivered
	at       time.Time
	attempts int
}

// retryable: the server answered 5xx or not at all (0: unreachable, timed
// out). A 4xx answer (bad signature, malformed payload, too large) would
// be the same again.
func retryable(a ghapp.HookAttempt) bool { return a.StatusCode == 0 || a.StatusCode >= 500 }

// failedGUIDs groups attempts by GUID and returns those without a
// successful attempt, oldest first; it counts recoveries into rep.
func failedGUIDs(attempts []ghapp.HookAttempt, rep *Report) []failed {
	type state struct {
		ok, failedOnce, retry bool
		attempts              int
		newest                ghapp.HookAttempt
	}
	by := map[string]*state{}
	for _, a := range attempts {
		s := by[a.GUID]
		if s == nil {
			s = &state{newest: a}
			by[a.GUID] = s
		}
		if a.DeliveredAt.After(s.newest.DeliveredAt) || (a.DeliveredAt.Equal(s.newest.DeliveredAt) && a.ID > s.newest.ID) {
			s.newest = a
		}
		s.attempts++
		if a.OK() {
			s.ok = true
		} else {
			s.failedOnce = true
			s.retry = s.retry || retryable(a)
		}
	}
	var out []failed
	for guid, s := range by {
		switch {
		case s.ok && s.failedOnce:
			rep.Recovered++
		case !s.ok && !s.retry:
			rep.Refused++
		case !s.ok:
			out = append(out, failed{guid: guid, newest: s.newest.ID, at: s.newest.DeliveredAt, attempts: s.attempts})
		}
	}
	rep.Failed = len(out) + rep.Refused
	sort.Slice(out, func(i, j int) bool {
		if !out[i].at.Equal(out[j].at) {
			return out[i].at.Before(out[j].at)
		}
		return out[i].guid < out[j].guid
	})
	return out
}
