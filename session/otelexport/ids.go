package otelexport

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"strconv"

	"go.opentelemetry.io/otel/trace"

	"github.com/issuesmith/issuesmith/store"
)

// ids derives a session's trace id and the span ids of its run, steps and
// attempts: HMAC-SHA256 under key of what names them.
type ids struct{ key []byte }

// run names a session for the derivation: its id and the millisecond it
// started (as the store keeps it), so a database started afresh, whose ids
// begin at 1 again, never reuses an earlier run's trace.
type run struct {
	id      int64
	started int64
}

func runOf(s store.Session) run { return run{id: s.ID, started: s.StartedAt.UnixMilli()} }

func (r run) String() string {
	return strconv.FormatInt(r.id, 10) + "@" + strconv.FormatInt(r.started, 10)
}

func (d ids) sum(parts ...string) []byte {
	m := hmac.New(sha256.New, d.key)
	for _, p := range parts {
		m.Write([]byte(p))
		m.Write([]byte{0})
	}
	return m.Sum(nil)
}

func (d ids) trace(r run) trace.TraceID {
	var t trace.TraceID
	copy(t[:], d.sum("trace", r.String()))
	if !t.IsValid() {
		t[15] = 1
	}
	return t
}

func (d ids) span(parts ...string) trace.SpanID {
	var s trace.SpanID
	copy(s[:], d.sum(parts...))
	if !s.IsValid() {
		s[7] = 1
	}
	return s
}

func (d ids) root(r run) trace.SpanID { return d.span("run", r.String()) }

// step is the span of step (all its attempts).
func (d ids) step(r run, step string) trace.SpanID { return d.span("step", r.String(), step) }

// attempt is the span of one attempt of step.
func (d ids) attempt(r run, step string, n int) trace.SpanID {
	return d.span("attempt", r.String(), step, strconv.Itoa(n))
}

// parent is the span context of a derived span of r, as a remote parent:
// spans started under it join r's trace.
func (d ids) parent(ctx context.Context, r run, span trace.SpanID) context.Context {
	return trace.ContextWithRemoteSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: d.trace(r), SpanID: span, TraceFlags: trace.FlagsSampled, Remote: true}))
}

// randomKey is the key of a process that keeps no key (a local run).
func randomKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // never fails (crypto/rand)
	return k
}

type forcedKey struct{}

type forced struct {
	trace trace.TraceID
	span  trace.SpanID
}

// withIDs makes the next span started on ctx take these ids (a derived
// span: the run's, a stage's, a step's).
func withIDs(ctx context.Context, t trace.TraceID, s trace.SpanID) context.Context {
	return context.WithValue(ctx, forcedKey{}, forced{t, s})
}

// idGenerator gives a span the ids withIDs put in its context, else random
// ones (a call's span).
type idGenerator struct{}

func (idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if f, ok := ctx.Value(forcedKey{}).(forced); ok {
		return f.trace, f.span
	}
	var t trace.TraceID
	_, _ = rand.Read(t[:])
	return t, newSpanID()
}

func (idGenerator) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	if f, ok := ctx.Value(forcedKey{}).(forced); ok {
		return f.span
	}
	return newSpanID()
}

func newSpanID() trace.SpanID {
	var s trace.SpanID
	for !s.IsValid() {
		_, _ = rand.Read(s[:])
	}
	return s
}
