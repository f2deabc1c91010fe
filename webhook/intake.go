package webhook

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/issuesmith/issuesmith/workflow"
)

// accept answers a repeat at once, then authorises (a GitHub call, before
// anything is written), then records the delivery and queues its work in
// one transaction. A failure anywhere leaves nothing recorded, so GitHub's
// redelivery (or the reconciler's) is handled, never dropped as a
// duplicate.
func (h *Handler) accept(ctx context.Context, v verdict, bodyKey string, log *slog.Logger) (int, string, string) {
	ev := v.ev
	idKey := IDKey(ev.Delivery)
	// A repeat (GitHub's redelivery of a handled delivery, or a captured
	// body replayed under a new id) is answered before any GitHub call: a
	// replay flood must not spend the installation's rate limit.
	if dup, err := h.recorded(ctx, []string{idKey, bodyKey}); err == nil && dup != "" {
		return duplicate(dup, idKey, bodyKey, log)
	}
	if v.authorize {
		ok, err := h.opts.Authorizer.CanWrite(ctx, ev.InstallationID, ev.Owner, ev.Repo, ev.Sender)
		if installationGone(err) {
			log.Warn("delivery for an installation GitHub does not know; ignored", "err", err)
			return http.StatusOK, ResultIgnored, "installation unknown to GitHub (the App was uninstalled?)"
		}
		if err != nil {
			log.Error("permission check failed; denying", "sender", ev.Sender, "err", err)
			return http.StatusServiceUnavailable, ResultDenied, "permission check failed"
		}
		if !ok {
			return http.StatusOK, ResultDenied, fmt.Sprintf("%s lacks write permission", ev.Sender)
		}
	}
	dup, err := h.record(ctx, []string{idKey, bodyKey}, ev)
	switch {
	case err != nil && h.opts.Hold != nil && ctx.Err() == nil:
		herr := h.hold([]string{idKey, bodyKey}, ev)
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

// recordedWait bounds the read-only look before the permission check when
// deliveries can be held: it is only a shortcut (Accept decides), and a
// database that cannot answer it (SQLite's one connection taken by a
// write waiting on a lock) must leave the time to hold the delivery.
const recordedWait = time.Second

// recorded is the Intake's Recorded, bounded by recordedWait with a
// Holder.
func (h *Handler) recorded(ctx context.Context, keys []string) (string, error) {
	if h.opts.Hold != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, recordedWait)
		defer cancel()
	}
	return h.opts.Intake.Recorded(ctx, keys)
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

// installationGone reports whether err says that GitHub does not know the
// delivery's installation (see Authorizer): the App was uninstalled there,
// so no redelivery could succeed.
func installationGone(err error) bool {
	var g interface{ InstallationGone() bool }
	return errors.As(err, &g) && g.InstallationGone()
}
