package webhook

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/issuesmith/issuesmith/workflow"
)

// accept records the delivery and queues its work in one transaction,
// before any call to GitHub: a sender's permission is checked by the
// intake job (Event.CheckWrite), where a rate limit only delays it. A
// repeat (GitHub's redelivery of a handled delivery, or a captured body
// replayed under a new id) is found by the same transaction and answered
// as a duplicate. A failure leaves nothing recorded, so GitHub's
// redelivery (or the reconciler's) is handled, never dropped as a
// duplicate.
func (h *Handler) accept(ctx context.Context, v verdict, bodyKey string, log *slog.Logger) (int, string, string) {
	ev := v.ev
	ev.CheckWrite = v.authorize
	idKey := IDKey(ev.Delivery)
	keys := append([]string{idKey, bodyKey}, v.keys...)
	dup, err := h.record(ctx, keys, ev)
	switch {
	case err != nil && h.opts.Hold != nil && ctx.Err() == nil:
		herr := h.hold(keys, ev)
		if herr == nil {
			log.Warn("could not record the delivery; held until the database answers", "err", err)
			return http.StatusAccepted, ResultHeld, "held: recorded once the database answers"
		}
		log.Error("accept delivery (and could not hold it)", "err", err, "hold", herr)
		return http.StatusServiceUnavailable, ResultError, "could not record the delivery"
	case err != nil:
		log.Error("accept delivery", "err", err)
		return http.StatusServiceUnavailable, ResultError, "could not record the delivery"
	case dup != "":
		return duplicate(dup, idKey, bodyKey, log)
	}
	return http.StatusAccepted, ResultDispatched, string(ev.Kind)
}

// record is the Intake's Accept. With a Holder it waits at most
// AcceptTimeout: GitHub gives up on an answer after 10 s, and a database
// that does not answer in time (a locked SQLite sleeps out its busy
// timeout whatever the context says) gets the delivery held rather than a
// client that has gone. The abandoned Accept is cancelled; should it still
// commit, the held copy is a duplicate when drained.
func (h *Handler) record(ctx context.Context, keys []string, ev workflow.Event) (string, error) {
	if h.opts.Hold == nil {
		return h.opts.Intake.Accept(ctx, keys, ev)
	}
	limit := cmp.Or(h.opts.AcceptTimeout, DefaultAcceptTimeout)
	actx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	type result struct {
		dup string
		err error
	}
	done := make(chan result, 1)
	go func() {
		dup, err := h.opts.Intake.Accept(actx, keys, ev)
		done <- result{dup, err}
	}()
	select {
	case r := <-done:
		return r.dup, r.err
	case <-actx.Done():
		return "", fmt.Errorf("the database did not record the delivery within %v: %w", limit, actx.Err())
	}
}

// duplicate is the answer to a delivery whose key dup was recorded before:
// its id, or its body under another id (a replay).
func duplicate(dup, idKey, bodyKey string, log *slog.Logger) (int, string, string) {
	if dup == idKey {
		return http.StatusOK, ResultDuplicate, "delivery id already handled"
	}
	log.Warn("same payload already handled under another delivery id; replay ignored", "body", bodyKey)
	return http.StatusOK, ResultDuplicate, "payload already handled under another delivery id"
}
