package trydemo

import (
	"context"
	"log/slog"
	"sync/atomic"
)

// hushHandler passes records on until the run is over; then it drops them:
// the shutdown's "context canceled" from the job queue is not news to a
// person who only asked for the page.
type hushHandler struct {
	next slog.Handler
	off  *atomic.Bool
}

func (h hushHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return !h.off.Load() && h.next.Enabled(ctx, l)
}

func (h hushHandler) Handle(ctx context.Context, r slog.Record) error {
	if h.off.Load() {
		return nil
	}
	return h.next.Handle(ctx, r)
}

func (h hushHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return hushHandler{h.next.WithAttrs(as), h.off}
}

func (h hushHandler) WithGroup(name string) slog.Handler {
	return hushHandler{h.next.WithGroup(name), h.off}
}
