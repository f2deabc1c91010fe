package webhook

import (
	"context"

	"github.com/issuesmith/issuesmith/workflow"
)

// Consumer receives authorised events: *workflow.Engine is the one in
// production. Handle must only enqueue durable work and return in
// milliseconds. An error wrapping workflow.ErrIgnored means nothing to do
// (the handler answers 200 "ignored" and keeps the delivery recorded); any
// other error makes the handler answer 503 and forget the delivery, so
// GitHub's redelivery is processed again.
type Consumer interface {
	Handle(ctx context.Context, ev workflow.Event) error
}

// Deliveries remembers webhook deliveries by X-GitHub-Delivery id (store
// implements it). RecordDelivery atomically records id and reports fresh =
// true the first time, false for a repeat. The handler also records a key
// "body:<hex sha256 of the body>" (69 characters) per delivery, so a signed
// body replayed under a new delivery id is recognised too.
type Deliveries interface {
	RecordDelivery(ctx context.Context, id, event string) (fresh bool, err error)
}

// Forgetter is optionally implemented by a Deliveries: the handler forgets a
// delivery it could not handle (permission check or consumer failed), so a
// redelivery from GitHub is processed instead of ignored.
type Forgetter interface {
	ForgetDelivery(ctx context.Context, id string) error
}

// Authorizer checks a sender's permission through the GitHub API, as the
// installation. ghapp.App implements it. An error means "unknown" and the
// handler denies (503, so GitHub may deliver again), except an error with a
// method InstallationGone() bool answering true: GitHub does not know the
// installation (the App was uninstalled), no redelivery can succeed, and the
// delivery is answered 200 as ignored.
type Authorizer interface {
	CanWrite(ctx context.Context, installationID int64, owner, repo, user string) (bool, error)
}

// Intake accepts an authorised event atomically: it records the delivery's
// keys (IDKey of the delivery id and the body key) and queues the event's
// work in one transaction, and returns the key already recorded ("" when
// accepted; then nothing was written). *workflow.Engine implements it; when
// Options.Intake is set the handler uses it instead of Deliveries and
// Consumer, so a delivery is either fully accepted or not recorded at all.
type Intake interface {
	Accept(ctx context.Context, keys []string, ev workflow.Event) (dup string, err error)
}

// IDKey is the recorded key of a delivery id. Ids and body keys ("body:…")
// live in separate key spaces, so an X-GitHub-Delivery header (not covered
// by the signature) can never name another payload's body key.
func IDKey(delivery string) string { return "id:" + delivery }
