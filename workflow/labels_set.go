package workflow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/issuesmith/issuesmith/store"
)

// labelsSet turns an issue's labels as they are now (a LabelsSet event,
// read again from the forge) into the labels added and removed since the
// set recorded last, each an
// intake job of its own (Labeled, Unlabeled) queued in the transaction
// that records the new set and completes the job that carried ev: a crash
// loses no change and repeats none. The first set the bot hears of an
// issue counts every label as added (the repository's trigger label, read
// by the label job, decides whether one starts a run). The derived events
// were checked with ev (CheckWrite) and are not checked again.
func (e *Engine) labelsSet(ctx context.Context, c *completion, ev Event) error {
	// The delivery's labels may be stale (Gitea builds the payload from
	// the issue it held before the change): the forge's answer now is the
	// set to compare.
	gh, err := e.d.GitHub.Client(ctx, ev.InstallationID)
	if err != nil {
		return err
	}
	is, err := gh.GetIssue(ctx, ev.Owner, ev.Repo, ev.Number)
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("%w: issue %s/%s#%d is gone", ErrIgnored, ev.Owner, ev.Repo, ev.Number)
	}
	if err != nil {
		return fmt.Errorf("read the labels of %s/%s#%d: %w", ev.Owner, ev.Repo, ev.Number, err)
	}
	ev.Labels = is.Labels
	queued := 0
	err = e.commit(ctx, c, func(tx *store.Tx) error {
		queued = 0
		before, _, err := tx.SwapIssueLabels(ctx, ev.Owner, ev.Repo, ev.Number, ev.Labels)
		if err != nil {
			return err
		}
		changes := []struct {
			kind  EventKind
			names []string
		}{{Unlabeled, missingFrom(before, ev.Labels)}, {Labeled, missingFrom(ev.Labels, before)}}
		for _, ch := range changes {
			kind := ch.kind
			for _, name := range ch.names {
				one := ev
				one.Kind, one.Label, one.Labels, one.CheckWrite = kind, name, nil, false
				one.Delivery = fmt.Sprintf("%s/%s:%s", ev.Delivery, kind, name)
				if _, _, err := tx.Insert(ctx, IntakeArgs{Event: one}, nil); err != nil {
					return err
				}
				queued++
			}
		}
		return nil
	})
	if err == nil && queued == 0 {
		return fmt.Errorf("%w: the labels of %s/%s#%d did not change", ErrIgnored, ev.Owner, ev.Repo, ev.Number)
	}
	return err
}

// missingFrom lists the names of a that b lacks, compared without case as
// the forges compare label names.
func missingFrom(a, b []string) []string {
	var out []string
	for _, name := range a {
		if !slices.ContainsFunc(b, func(o string) bool { return strings.EqualFold(o, name) }) {
			out = append(out, name)
		}
	}
	return out
}
