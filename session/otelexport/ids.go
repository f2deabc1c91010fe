package otelexport

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"strconv"

	"go.opentelemetry.io/otel/trace"
)

// ids derives a session's trace id and the span ids of its run, stages and
// steps: HMAC-SHA256 under key of what names them.
type ids struct{ key []byte }

func (d ids) sum(parts ...string) []byte {
	m := hmac.New(sha256.New, d.key)
	for _, p := range parts {
		m.Write([]byte(p))
		m.Write([]byte{0})
	}
	return m.Sum(nil)
}

func (d ids) trace(session int64) trace.TraceID {
	var t trace.TraceID
	copy(t[:], d.sum("trace", strconv.FormatInt(session, 10)))
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

func (d ids) root(session int64) trace.SpanID {
	return d.span("run", strconv.FormatInt(session, 10))
}

func (d ids) stage(session int64, stage string) trace.SpanID {
	return d.span("stage", strconv.FormatInt(session, 10), stage)
}

func (d ids) step(session int64, step string, attempt int) trace.SpanID {
	return d.span("step", strconv.FormatInt(session, 10), step, strconv.Itoa(attempt))
}

// parent is the span context of a derived span of session, as a remote
// parent: spans started under it join the session's trace.
func (d ids) parent(ctx context.Context, session int64, span trace.SpanID) context.Context {
	return trace.ContextWithRemoteSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: d.trace(session), SpanID: span, TraceFlags: trace.FlagsSampled, Remote: true}))
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
