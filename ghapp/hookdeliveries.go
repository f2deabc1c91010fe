package ghapp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/go-github/v60/github"
)

// HookAttempt is one attempt in the App's webhook delivery log
// (GET /app/hook/deliveries).
type HookAttempt struct {
	ID          int64 // the attempt; redelivery is asked by it
	GUID        string
	Event       string
	StatusCode  int // the App server's answer; 0 when unreachable
	Redelivery  bool
	DeliveredAt time.Time
}

// OK reports whether the App's server accepted the attempt (2xx).
func (a HookAttempt) OK() bool { return a.StatusCode >= 200 && a.StatusCode < 300 }

// HookAttempts lists the delivery log back to since, newest first, at most
// limit attempts (GitHub keeps about three days of it).
func (a *App) HookAttempts(ctx context.Context, since time.Time, limit int) ([]HookAttempt, error) {
	c := a.AppClient()
	opts := &github.ListCursorOptions{PerPage: 100}
	var out []HookAttempt
	for {
		page, resp, err := c.Apps.ListHookDeliveries(ctx, opts)
		if err != nil {
			return out, fmt.Errorf("list webhook deliveries: %w", err)
		}
		for _, d := range page {
			at := d.GetDeliveredAt().Time
			if at.Before(since) || len(out) >= limit {
				return out, nil
			}
			out = append(out, HookAttempt{ID: d.GetID(), GUID: d.GetGUID(), Event: d.GetEvent(),
				StatusCode: d.GetStatusCode(), Redelivery: d.GetRedelivery(), DeliveredAt: at})
		}
		if resp.Cursor == "" || len(page) == 0 {
			return out, nil
		}
		opts.Cursor = resp.Cursor
	}
}

// Redeliver asks GitHub to deliver attempt id's payload again, under the
// same delivery GUID.
func (a *App) Redeliver(ctx context.Context, id int64) error {
	if _, _, err := a.AppClient().Apps.RedeliverHookDelivery(ctx, id); err != nil {
		if _, accepted := errors.AsType[*github.AcceptedError](err); accepted {
			return nil
		}
		return fmt.Errorf("redeliver webhook attempt %d: %w", id, err)
	}
	return nil
}
