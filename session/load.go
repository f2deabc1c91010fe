package session

import (
	"context"

	"github.com/issuesmith/issuesmith/store"
)

// Reader reads sessions back: *store.Store.
type Reader interface {
	Session(ctx context.Context, id int64) (*store.Session, error)
	SessionEvents(ctx context.Context, sessionID, after int64, limit int) ([]*store.SessionEvent, error)
	SessionBlobs(ctx context.Context, sessionID int64) (map[string]store.SessionBlob, error)
}

// Record is a whole session as read back.
type Record struct {
	Session *store.Session
	Events  []Event
	Blobs   map[string]store.SessionBlob
}

// Load reads session id with its events and blobs; store.ErrNotFound when
// it does not exist.
func Load(ctx context.Context, rd Reader, id int64) (*Record, error) {
	s, err := rd.Session(ctx, id)
	if err != nil {
		return nil, err
	}
	raw, err := rd.SessionEvents(ctx, id, 0, 0)
	if err != nil {
		return nil, err
	}
	blobs, err := rd.SessionBlobs(ctx, id)
	if err != nil {
		return nil, err
	}
	rec := &Record{Session: s, Blobs: blobs, Events: make([]Event, 0, len(raw))}
	for _, ev := range raw {
		e, err := Decode(ev)
		if err != nil {
			return nil, err
		}
		rec.Events = append(rec.Events, e)
	}
	return rec, nil
}

// IssueTitle reads the title of session id's issue from its first events
// (the explorer's first request, which the bound never cuts), without
// reading the whole session; "" when they do not hold it.
func IssueTitle(ctx context.Context, rd Reader, id int64) string {
	raw, err := rd.SessionEvents(ctx, id, 0, 16)
	if err != nil {
		return ""
	}
	rec := &Record{}
	for _, ev := range raw {
		if e, err := Decode(ev); err == nil {
			rec.Events = append(rec.Events, e)
		}
	}
	return rec.IssueTitle()
}
