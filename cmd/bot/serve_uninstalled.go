package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/issuesmith/issuesmith/webhook"
	"github.com/issuesmith/issuesmith/workflow"
)

// uninstalled ends, in the store only, the open runs of an installation
// that was deleted or of repositories removed from it: they would otherwise
// wait for an approval that can never come. Other installation events
// (created, suspend, repositories added) need nothing from the workflow.
func (d dispatcher) uninstalled(ctx context.Context, ev webhook.Event) error {
	var repos []string
	switch {
	case ev.Kind == webhook.KindInstallation && ev.Action == "deleted":
	case ev.Kind == webhook.KindRepositories && ev.Action == "removed" && len(ev.Removed) > 0:
		repos = ev.Removed
	default:
		return fmt.Errorf("%s %s: %w", ev.Kind, ev.Action, webhook.ErrNotQueued)
	}
	err := d.engine.Uninstalled(ctx, ev.Installation, repos)
	if errors.Is(err, workflow.ErrIgnored) {
		return fmt.Errorf("%s %s: %w", ev.Kind, ev.Action, webhook.ErrNotQueued)
	}
	return err
}
