package otelexport

import (
	"context"
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

// Sink forwards every call to the sink it wraps and exports what was
// stored. Its results are the wrapped sink's, unchanged.
type Sink struct {
	next session.Sink
	e    *Exporter
}

var _ session.Sink = (*Sink)(nil)

// state is what the exporter keeps of a session between calls.
type state struct {
	meta  store.Session // identity and the totals when this process opened it
	steps map[string]*stepInfo
	open  *attempt       // the step attempt running in this process
	calls []llm.ToolCall // the last model call's tool calls, not yet matched
	used  time.Time      // the last call about this session
}

// stepInfo is one step key: its stage and the first time it was seen.
type stepInfo struct {
	stage string
	first time.Time
}

// attempt is a step attempt begun in this process.
type attempt struct {
	step  string
	n     int
	start time.Time
}

// maxSessions bounds the sessions kept in memory: a run ended outside a
// recorder (cancelled, uninstalled) is never ended here. The one unused
// longest goes first.
const maxSessions = 1024

// session returns id's state, making it (e.mu held).
func (e *Exporter) session(id int64) *state {
	s := e.sessions[id]
	if s == nil {
		if len(e.sessions) >= maxSessions {
			e.forgetOldest()
		}
		s = &state{meta: store.Session{ID: id}, steps: map[string]*stepInfo{}}
		e.sessions[id] = s
	}
	s.used = time.Now()
	return s
}

// forgetOldest drops the session unused longest (e.mu held).
func (e *Exporter) forgetOldest() {
	var oldest int64
	var at time.Time
	for id, s := range e.sessions {
		if at.IsZero() || s.used.Before(at) {
			oldest, at = id, s.used
		}
	}
	delete(e.sessions, oldest)
}

// CreateSession creates the session and exports the run's root span.
func (k *Sink) CreateSession(ctx context.Context, s *store.Session) error {
	err := k.next.CreateSession(ctx, s)
	if err == nil {
		k.e.created(*s)
	}
	return err
}

// SessionOfRun finds the run's session; the exporter keeps its identity.
func (k *Sink) SessionOfRun(ctx context.Context, runID int64) (*store.Session, error) {
	s, err := k.next.SessionOfRun(ctx, runID)
	if err == nil && s != nil {
		k.e.opened(*s)
	}
	return s, err
}

// ReopenSession forwards.
func (k *Sink) ReopenSession(ctx context.Context, id int64, state string) error {
	return k.next.ReopenSession(ctx, id, state)
}

// EndSession ends the session and exports the step left open and the
// run's end.
func (k *Sink) EndSession(ctx context.Context, id int64, state string) error {
	err := k.next.EndSession(ctx, id, state)
	if err == nil {
		k.e.ended(id, state)
	}
	return err
}

// AppendSessionEvent stores ev and, when it was stored, exports its span.
func (k *Sink) AppendSessionEvent(ctx context.Context, ev *store.SessionEvent, d store.SessionDelta) (bool, error) {
	stored, err := k.next.AppendSessionEvent(ctx, ev, d)
	if err == nil && stored {
		k.e.event(ev, d)
	}
	return stored, err
}

// ShrinkSessionEvent forwards (the span of the event went out whole).
func (k *Sink) ShrinkSessionEvent(ctx context.Context, sessionID, seq int64, body string) error {
	return k.next.ShrinkSessionEvent(ctx, sessionID, seq, body)
}

// SessionEvents reads the events; read whole (a resumed recorder), they
// tell the exporter the steps seen before.
func (k *Sink) SessionEvents(ctx context.Context, sessionID, after int64, limit int) ([]*store.SessionEvent, error) {
	evs, err := k.next.SessionEvents(ctx, sessionID, after, limit)
	if err == nil && after == 0 && limit <= 0 {
		k.e.seen(sessionID, evs)
	}
	return evs, err
}

// BeginSessionStep begins the step; a step not finished before opens an
// attempt (the one left open before, if any, is exported as unfinished).
func (k *Sink) BeginSessionStep(ctx context.Context, sessionID int64, step string) (int, bool, error) {
	n, done, err := k.next.BeginSessionStep(ctx, sessionID, step)
	if err == nil {
		k.e.begun(sessionID, step, n, done)
	}
	return n, done, err
}

// FinishSessionStep finishes the step and exports it.
func (k *Sink) FinishSessionStep(ctx context.Context, sessionID int64, step string) error {
	err := k.next.FinishSessionStep(ctx, sessionID, step)
	if err == nil {
		k.e.finished(sessionID, step)
	}
	return err
}

// PutSessionBlob forwards.
func (k *Sink) PutSessionBlob(ctx context.Context, sessionID int64, hash, kind, body string) (bool, error) {
	return k.next.PutSessionBlob(ctx, sessionID, hash, kind, body)
}

func (e *Exporter) created(s store.Session) {
	e.mu.Lock()
	st := e.session(s.ID)
	st.meta = s
	e.mu.Unlock()
	e.rootSpan(s)
	e.flushSoon()
}

func (e *Exporter) opened(s store.Session) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.session(s.ID).meta = s
}

func (e *Exporter) seen(id int64, evs []*store.SessionEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.session(id)
	for _, ev := range evs {
		// The store keeps milliseconds: a millisecond earlier is never
		// after the event's span started.
		st.note(ev.Stage, ev.Step, ev.At.Add(-ev.Duration-time.Millisecond))
	}
}

// note records that step (of stage) was active at t.
func (s *state) note(stage, step string, t time.Time) {
	if step == "" {
		return
	}
	si := s.steps[step]
	if si == nil {
		si = &stepInfo{first: t}
		s.steps[step] = si
	}
	if si.stage == "" {
		si.stage = stage
	}
	if t.Before(si.first) {
		si.first = t
	}
}

func (e *Exporter) begun(id int64, step string, n int, done bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.session(id)
	e.leaveStep(st, "the next step began before this one finished")
	st.calls = nil
	if done {
		return
	}
	now := time.Now()
	st.note("", step, now)
	st.open = &attempt{step: step, n: n, start: now}
}

func (e *Exporter) finished(id int64, step string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.session(id)
	if st.open == nil || st.open.step != step {
		return
	}
	e.endStep(st, "")
	e.flushSoon()
}

// leaveStep exports the attempt open in st as unfinished, why (e.mu held).
func (e *Exporter) leaveStep(st *state, why string) {
	if st.open != nil {
		e.endStep(st, why)
	}
}

func (e *Exporter) ended(id int64, state string) {
	e.mu.Lock()
	st := e.session(id)
	e.leaveStep(st, whyRunEnded)
	meta := st.meta
	delete(e.sessions, id)
	e.mu.Unlock()
	e.endSpan(meta, state)
	e.flushSoon()
}

func (e *Exporter) event(ev *store.SessionEvent, d store.SessionDelta) {
	p, err := session.Decode(ev)
	if err != nil {
		return // not ours to judge: the store kept it
	}
	e.mu.Lock()
	st := e.session(ev.SessionID)
	st.note(ev.Stage, ev.Step, ev.At.Add(-ev.Duration))
	st.meta.ModelCalls += d.ModelCalls
	st.meta.PromptTokens += d.PromptTokens
	st.meta.CachedTokens += d.CachedTokens
	st.meta.CompletionTokens += d.CompletionTokens
	st.meta.Cost += d.Cost
	r := runOf(st.meta)
	var callID string
	switch {
	case p.Model != nil:
		st.calls = p.Model.ToolCalls
	case p.Tool != nil:
		callID = st.match(p.Tool)
	}
	e.mu.Unlock()
	e.eventSpan(r, ev, p, callID)
}

// match returns the id of the model's tool call that tc answers (by name
// and arguments, else by name), taking it off the list.
func (s *state) match(tc *session.ToolCall) string {
	best := -1
	for i, c := range s.calls {
		if c.Name != tc.Name {
			continue
		}
		if c.Arguments == tc.Args {
			best = i
			break
		}
		if best < 0 {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	id := s.calls[best].ID
	s.calls = append(s.calls[:best:best], s.calls[best+1:]...)
	return id
}
