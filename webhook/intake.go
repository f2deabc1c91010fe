package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
)

// accept is admit with an Intake: authorise first (a GitHub call, before
// anything is written), then record the delivery and queue its work in one
// transaction. A failure anywhere leaves nothing recorded, so GitHub's
// redelivery (or the reconciler's) is handled, never dropped as a
// duplicate.
func (h *Handler) accept(ctx context.Context, v verdict, bodyKey string, log *slog.Logger) (int, string, string) {
	ev := v.ev
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
	idKey := IDKey(ev.Delivery)
	dup, err := h.opts.Intake.Accept(ctx, []string{idKey, bodyKey}, ev)
	switch {
	case err != nil:
		log.Error("accept delivery", "err", err)
		return http.StatusServiceUnavailable, ResultError, "could not record the delivery"
	case dup == idKey:
		return http.StatusOK, ResultDuplicate, "delivery id already handled"
	case dup != "":
		log.Warn("same payload already handled under another delivery id; replay ignored", "body", bodyKey)
		return http.StatusOK, ResultDuplicate, "payload already handled under another delivery id"
	}
	return http.StatusAccepted, ResultDispatched, string(ev.Kind)
}

// installationGone reports whether err says that GitHub does not know the
// delivery's installation (see Authorizer): the App was uninstalled there,
// so no redelivery could succeed.
func installationGone(err error) bool {
	var g interface{ InstallationGone() bool }
	return errors.As(err, &g) && g.InstallationGone()
}
