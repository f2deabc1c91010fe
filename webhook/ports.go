package webhook

import (
	"context"
	"fmt"
	"time"

	"github.com/issuesmith/issuesmith/workflow"
)

// Intake accepts an event atomically: it records the delivery's
// keys (IDKey of the delivery id and the body key) and queues the event's
// work in one transaction, and returns the key already recorded ("" when
// accepted; then nothing was written). *workflow.Engine implements it, so a
// delivery is either fully accepted or not recorded at all.
type Intake interface {
	Accept(ctx context.Context, keys []string, ev workflow.Event) (dup string, err error)
}

// IDKey is the recorded key of a delivery id. Ids and body keys ("body:…")
// live in separate key spaces, so an X-GitHub-Delivery header (not covered
// by the signature) can never name another payload's body key.
func IDKey(delivery string) string { return "id:" + delivery }

// ObjectKey is the recorded key of one state of a forge's object (a
// comment at its last edit), for forges whose deliveries a poll may find
// again (giteapoll): the webhook's delivery and the poll's event of the
// same comment record the same key, so the request is handled once.
func ObjectKey(forge, kind string, id int64, updated time.Time) string {
	return fmt.Sprintf("obj:%s:%s:%d:%d", forge, kind, id, updated.Unix())
}
