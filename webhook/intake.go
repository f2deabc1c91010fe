package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
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
	if dup, err := h.opts.Intake.Recorded(ctx, []string{idKey, bodyKey}); err == nil && dup != "" {
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
	dup, err := h.opts.Intake.Accept(ctx, []string{idKey, bodyKey}, ev)
	switch {
	case err != nil:
		log.Error("accept delivery", "err", err)
		return http.StatusServiceUnavailable, ResultError, "could not record the delivery"
	case dup != "":
		return duplicate(dup, idKey, bodyKey, log)
	}
	return http.StatusAccepted, ResultDispatched, string(ev.Kind)
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
