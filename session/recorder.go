package session

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/issuesmith/issuesmith/internal/redact"
	"github.com/issuesmith/issuesmith/store"
)

// Sink keeps sessions: *store.Store, or a File.
type Sink interface {
	CreateSession(ctx context.Context, s *store.Session) error
	SessionOfRun(ctx context.Context, runID int64) (*store.Session, error)
	ReopenSession(ctx context.Context, id int64, state string) error
	EndSession(ctx context.Context, id int64, state string) error
	AppendSessionEvent(ctx context.Context, ev *store.SessionEvent, d store.SessionDelta) (bool, error)
	ShrinkSessionEvent(ctx context.Context, sessionID, seq int64, body string) error
	SessionEvents(ctx context.Context, sessionID, after int64, limit int) ([]*store.SessionEvent, error)
	BeginSessionStep(ctx context.Context, sessionID int64, step string) (int, bool, error)
	FinishSessionStep(ctx context.Context, sessionID int64, step string) error
	PutSessionBlob(ctx context.Context, sessionID int64, hash, kind, body string) (bool, error)
}

// DefaultMaxBytes bounds a session's stored bytes.
const DefaultMaxBytes = 2 << 20

// DefaultRetention is how long sessions are kept.
const DefaultRetention = 90 * 24 * time.Hour

// Options tune a Recorder; the zero value is the default.
type Options struct {
	// MaxBytes bounds the session (DefaultMaxBytes when 0).
	MaxBytes int64
	// Secrets are values to redact besides every token shape (the
	// installation token, the model's API key).
	Secrets []string
	// Logger gets one line on the first recording failure.
	Logger *slog.Logger
	// OnError is called on every recording failure (a metric).
	OnError func(error)
	// Wrap, when set, decorates the sink every Recorder writes to (the
	// OpenTelemetry export of package session/otelexport): it must forward
	// every call unchanged.
	Wrap func(Sink) Sink
}

// writeTimeout bounds one write, on a context that outlives the job's
// cancellation: the event that ends a run is still stored at shutdown.
const writeTimeout = 5 * time.Second

// Recorder appends one session's events. It is safe for concurrent use; a
// nil *Recorder records nothing.
type Recorder struct {
	sink    Sink
	id      int64
	opts    Options
	secrets redact.Secrets

	mu         sync.Mutex
	seq        int64
	bytes      int64
	stage      string
	step       string
	attempt    int
	skipping   bool // the current step had finished before: drop its events
	shrinkable []shrinkable
	// compactable are the events stored whole, oldest first.
	compactable []compactable
	sawModel    bool // the first model call was stored (noteStored)
	compacting  bool // the bound was reached: events are stored without texts
	dropping    bool // even those no longer fit
	blobs       map[string]bool
	convs       map[string]conv
	failed      atomic.Bool
}

// Start opens the session of meta's run (meta.RunID), appending to it when
// it exists (a resumed job), or creates one. It returns nil, after logging
// and counting the failure, when the sink cannot: the run goes on without
// a session.
func Start(ctx context.Context, sink Sink, meta store.Session, opts Options) *Recorder {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Wrap != nil {
		sink = opts.Wrap(sink)
	}
	r := &Recorder{sink: sink, opts: opts, secrets: redact.New(opts.Secrets...),
		blobs: map[string]bool{}, convs: map[string]conv{}}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	if err := r.open(ctx, meta); err != nil {
		r.fail(err)
		return nil
	}
	return r
}

func (r *Recorder) open(ctx context.Context, meta store.Session) error {
	if meta.RunID != 0 {
		old, err := r.sink.SessionOfRun(ctx, meta.RunID)
		if err == nil {
			return r.resume(ctx, old, meta.State)
		}
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	meta.ID = 0
	if err := r.sink.CreateSession(ctx, &meta); err != nil {
		return err
	}
	r.id = meta.ID
	return nil
}

// resume continues old: its sequence, its size and its shrinkable events.
func (r *Recorder) resume(ctx context.Context, old *store.Session, state string) error {
	r.id, r.bytes = old.ID, old.Bytes
	if !old.Running() || (state != "" && state != old.State) {
		if err := r.sink.ReopenSession(ctx, old.ID, cmpOr(state, store.StateActive)); err != nil {
			return err
		}
	}
	evs, err := r.sink.SessionEvents(ctx, old.ID, 0, 0)
	if err != nil {
		return err
	}
	for _, ev := range evs {
		r.seq = max(r.seq, ev.Seq)
		if ev.Shrunk {
			continue
		}
		e, err := Decode(ev)
		if err != nil {
			continue
		}
		r.noteStored(ev.Seq, e.Kind, e.Payload, len(ev.Body))
		if e.Tool != nil && shrinks(e.Tool) {
			r.shrinkable = append(r.shrinkable, shrinkable{seq: ev.Seq, tool: *e.Tool, size: len(ev.Body)})
		}
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ID is the session's id (0 for a nil Recorder).
func (r *Recorder) ID() int64 {
	if r == nil {
		return 0
	}
	return r.id
}

// Begin starts step (a key unique in the run, such as the workflow's
// checkpoint name) of stage. When the step had finished before (a resumed
// job running it again), its events are dropped until Finish.
func (r *Recorder) Begin(ctx context.Context, stage, step string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stage, r.step, r.attempt, r.skipping = stage, step, 0, false
	if step == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	attempt, done, err := r.sink.BeginSessionStep(ctx, r.id, step)
	if err != nil {
		r.fail(err)
		return
	}
	r.attempt, r.skipping = attempt, done
}

// Finish records that the current step finished: a later run of it records
// nothing.
func (r *Recorder) Finish(ctx context.Context) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	step, skipping := r.step, r.skipping
	r.step, r.attempt, r.skipping = "", 0, false
	if step == "" || skipping {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	if err := r.sink.FinishSessionStep(ctx, r.id, step); err != nil {
		r.fail(err)
	}
}

// End records that the run ended in state (a store run state).
func (r *Recorder) End(ctx context.Context, state string) {
	if r == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	if err := r.sink.EndSession(ctx, r.id, state); err != nil {
		r.fail(err)
	}
}

// record stores one event of the current stage and step.
func (r *Recorder) record(ctx context.Context, kind Kind, dur time.Duration, p Payload, d store.SessionDelta) {
	if r == nil {
		return
	}
	body, err := json.Marshal(p)
	if err != nil {
		r.fail(err)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.skipping {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	text, shrunk, keep := r.fit(ctx, p, string(body))
	if !keep {
		return
	}
	r.append(ctx, kind, dur, p, text, shrunk, d)
}

// append writes one event (r.mu held).
func (r *Recorder) append(ctx context.Context, kind Kind, dur time.Duration, p Payload, body string, shrunk bool, d store.SessionDelta) {
	ev := &store.SessionEvent{SessionID: r.id, Seq: r.seq + 1, Stage: r.stage, Step: r.step, Attempt: r.attempt,
		Kind: string(kind), At: time.Now(), Duration: dur, Body: body, Shrunk: shrunk}
	stored, err := r.sink.AppendSessionEvent(ctx, ev, d)
	if err != nil {
		r.fail(err)
		return
	}
	if !stored {
		return
	}
	r.seq++
	r.bytes += int64(len(body))
	if !shrunk {
		r.noteStored(ev.Seq, kind, p, len(body))
	}
	if kind == KindTool && !shrunk && p.Tool != nil && shrinks(p.Tool) {
		r.shrinkable = append(r.shrinkable, shrinkable{seq: ev.Seq, tool: *p.Tool, size: len(body)})
	}
}

// fail logs the first recording failure and counts every one.
func (r *Recorder) fail(err error) {
	if r.opts.OnError != nil {
		r.opts.OnError(err)
	}
	if r.failed.Swap(true) {
		return
	}
	log := r.opts.Logger
	if log == nil {
		log = slog.Default()
	}
	log.Warn("session: recording failed; the run goes on without it", "session", r.id, "err", redact.Text(err.Error()))
}
