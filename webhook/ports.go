package webhook

import (
	"context"

	"github.com/issuesmith/issuesmith/workflow"
)

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
// accepted; then nothing was written). *workflow.Engine implements it, so a
// delivery is either fully accepted or not recorded at all.
//
// Recorded is a read-only look at the same keys (the first one recorded,
// "" when none), asked before the permission check so that a repeat or a
// replayed body costs no GitHub call; Accept still decides atomically.
type Intake interface {
	Accept(ctx context.Context, keys []string, ev workflow.Event) (dup string, err error)
	Recorded(ctx context.Context, keys []string) (dup string, err error)
}

// IDKey is the recorded key of a delivery id. Ids and body keys ("body:…")
// live in separate key spaces, so an X-GitHub-Delivery header (not covered
// by the signature) can never name another payload's body key.
func IDKey(delivery string) string { return "id:" + delivery }
