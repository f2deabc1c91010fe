package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/webhook"
)

// TestRecoveryAsksForAPassOnceTheDatabaseIsBack: deliveries answered 503
// because a write failed arm it; while the database does not answer it
// waits; once it answers it asks for one pass, and asks no more until
// another delivery is missed. Other results never arm it.
func TestRecoveryAsksForAPassOnceTheDatabaseIsBack(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	down.Store(true)
	r := &recovery{every: 5 * time.Millisecond, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		ping: func(context.Context) error {
			if down.Load() {
				return errors.New("connection refused")
			}
			return nil
		}}
	passes := make(chan struct{}, 10)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		r.run(ctx, func(context.Context) error { passes <- struct{}{}; return nil })
		close(done)
	}()
	t.Cleanup(func() { cancel(); <-done })

	r.observe(webhook.ResultIgnored)
	r.observe(webhook.ResultDispatched)
	r.observe(webhook.ResultHeld) // held on disk: recorded without GitHub
	down.Store(false)
	select {
	case <-passes:
		t.Fatal("a pass was asked with no delivery missed")
	case <-time.After(50 * time.Millisecond):
	}
	down.Store(true)
	r.observe(webhook.ResultError)
	r.observe(webhook.ResultError)
	select {
	case <-passes:
		t.Fatal("a pass was asked while the database was down")
	case <-time.After(50 * time.Millisecond):
	}
	down.Store(false)
	select {
	case <-passes:
	case <-time.After(5 * time.Second):
		t.Fatal("no pass asked once the database answered")
	}
	select {
	case <-passes:
		t.Fatal("a second pass for the same outage")
	case <-time.After(50 * time.Millisecond):
	}
	var none *recovery // reconciliation off
	none.observe(webhook.ResultError)
	none.run(ctx, nil)
}
