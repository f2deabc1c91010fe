package store

import (
	"context"
	"log/slog"
)

// riverPollOnly is River's line when the database cannot LISTEN (SQLite):
// expected here, yet worded like a fault.
const riverPollOnly = "Driver does not support listener; entering poll only mode"

// quietRiver is l with River's expected poll-only notice reworded and
// lowered to debug; every other record passes unchanged. nil stays nil
// (River's default logger).
func quietRiver(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(quietHandler{l.Handler()})
}

type quietHandler struct{ slog.Handler }

func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message != riverPollOnly {
		return h.Handler.Handle(ctx, r)
	}
	if !h.Handler.Enabled(ctx, slog.LevelDebug) {
		return nil
	}
	q := slog.NewRecord(r.Time, slog.LevelDebug, "job queue polls the database for new jobs (SQLite has no LISTEN/NOTIFY)", r.PC)
	return h.Handler.Handle(ctx, q)
}

func (h quietHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return quietHandler{h.Handler.WithAttrs(as)}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{h.Handler.WithGroup(name)}
}
