package session

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/issuesmith/issuesmith/store"
)

// File is a Sink writing a session as JSON lines, for runs without a
// database (`bot solve --session FILE`): a {"session": ...} line, then one
// line per event ({"event": ...}, decoded), per stored system prompt or
// tool schema ({"blob": ...}) and a last {"end": state}. It is append-only:
// a shrink writes nothing, so the file keeps every excerpt as first
// clipped.
type File struct {
	mu    sync.Mutex
	w     io.Writer
	steps map[string]int
	done  map[string]bool
}

// NewFile returns a File writing to w.
func NewFile(w io.Writer) *File {
	return &File{w: w, steps: map[string]int{}, done: map[string]bool{}}
}

// Line is one line of a File.
type Line struct {
	Session *store.Session     `json:"session,omitempty"`
	Event   *Event             `json:"event,omitempty"`
	Blob    *store.SessionBlob `json:"blob,omitempty"`
	End     string             `json:"end,omitempty"`
}

func (f *File) write(l Line) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write session file: %w", err)
	}
	return nil
}

// CreateSession writes the session line.
func (f *File) CreateSession(_ context.Context, s *store.Session) error {
	s.ID = 1
	return f.write(Line{Session: s})
}

// SessionOfRun finds nothing: a file holds one run.
func (f *File) SessionOfRun(context.Context, int64) (*store.Session, error) {
	return nil, store.ErrNotFound
}

// ReopenSession does nothing.
func (f *File) ReopenSession(context.Context, int64, string) error { return nil }

// EndSession writes the end line.
func (f *File) EndSession(_ context.Context, _ int64, state string) error {
	return f.write(Line{End: state})
}

// AppendSessionEvent writes the event line, unless its step has finished.
func (f *File) AppendSessionEvent(_ context.Context, ev *store.SessionEvent, _ store.SessionDelta) (bool, error) {
	f.mu.Lock()
	done := f.done[ev.Step]
	f.mu.Unlock()
	if ev.Step != "" && done {
		return false, nil
	}
	e, err := Decode(ev)
	if err != nil {
		return false, err
	}
	return true, f.write(Line{Event: &e})
}

// ShrinkSessionEvent does nothing: the file is append-only.
func (f *File) ShrinkSessionEvent(context.Context, int64, int64, string) error { return nil }

// SessionEvents returns nothing: a file is written, never read back.
func (f *File) SessionEvents(context.Context, int64, int64, int) ([]*store.SessionEvent, error) {
	return nil, nil
}

// BeginSessionStep counts the step's attempts in memory.
func (f *File) BeginSessionStep(_ context.Context, _ int64, step string) (int, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done[step] {
		return f.steps[step], true, nil
	}
	f.steps[step]++
	return f.steps[step], false, nil
}

// FinishSessionStep marks the step finished.
func (f *File) FinishSessionStep(_ context.Context, _ int64, step string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.done[step] = true
	return nil
}

// PutSessionBlob writes the blob line.
func (f *File) PutSessionBlob(_ context.Context, _ int64, hash, kind, body string) (bool, error) {
	return true, f.write(Line{Blob: &store.SessionBlob{Hash: hash, Kind: kind, Body: body}})
}
