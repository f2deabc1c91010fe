package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/issuesmith/issuesmith/internal/spool"
	"github.com/issuesmith/issuesmith/workflow"
)

// ResultHeld is the result of an authorised delivery the Intake could not
// record (the database did not answer) that Options.Hold kept instead: it
// is answered 202 and recorded by Drain once the database answers.
const ResultHeld = "held"

// Holder keeps, durably, a delivery the Intake could not record
// (*spool.Spool implements it). Put must return only once rec is safe on
// disk; an error (a full spool, a failed write) answers the delivery 503
// as without a Holder.
type Holder interface {
	Put(rec []byte) error
}

// DefaultAcceptTimeout is how long, with a Holder, the Intake may take to
// record a delivery before it is held instead: GitHub gives up on an
// answer after 10 s, and the permission check comes first.
const DefaultAcceptTimeout = 4 * time.Second

// heldVersion is the version of the held record this release writes.
const heldVersion = 1

// held is one held delivery: the keys Accept records and the authorised
// event (its JSON is the versioned shape job payloads use).
type held struct {
	V      int            `json:"v"`
	Keys   []string       `json:"keys"`
	Event  workflow.Event `json:"event"`
	HeldAt time.Time      `json:"held_at"`
}

// hold keeps ev durably for Drain.
func (h *Handler) hold(keys []string, ev workflow.Event) error {
	rec, err := json.Marshal(held{V: heldVersion, Keys: keys, Event: ev, HeldAt: time.Now().UTC()})
	if err != nil {
		return err
	}
	return h.opts.Hold.Put(rec)
}

// Drainer hands held records to a function, oldest first, removing each
// once it returned nil (*spool.Spool implements it).
type Drainer interface {
	Drain(ctx context.Context, fn func(rec []byte) error) (int, error)
}

// Drain records every held delivery through intake, oldest first, as the
// handler would have: a delivery recorded meanwhile (a redelivery, or a
// drain that crashed before removing it) is a duplicate and simply leaves
// the spool. It stops at the first failure (the database is still away),
// to be called again later, and returns how many left the spool. A record
// it cannot read, or one a newer release wrote, is set aside
// (spool.ErrUnreadable) rather than retried for ever.
func Drain(ctx context.Context, d Drainer, intake Intake) (int, error) {
	return d.Drain(ctx, func(rec []byte) error {
		var r held
		if err := json.Unmarshal(rec, &r); err != nil {
			return fmt.Errorf("held delivery: %w: %v", spool.ErrUnreadable, err)
		}
		if r.V < 1 || r.V > heldVersion || len(r.Keys) == 0 {
			return fmt.Errorf("held delivery: %w: version %d with %d keys", spool.ErrUnreadable, r.V, len(r.Keys))
		}
		_, err := intake.Accept(ctx, r.Keys, r.Event)
		return err
	})
}
