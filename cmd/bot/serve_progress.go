package main

import (
	"slices"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/work"
	"github.com/issuesmith/issuesmith/workflow"
)

// itemProgress turns the coder's per-item events (coder.Options.Progress)
// into the workflow's view: every plan item's status, in plan order,
// reported whenever one changes. It returns nil when there is no one to
// tell, so the coder skips the calls.
func itemProgress(plan *work.Plan, progress workflow.Progress) func(coder.ItemProgress) {
	if progress == nil || plan == nil {
		return nil
	}
	items := make([]workflow.ItemStatus, 0, len(plan.Items))
	for _, it := range plan.Items {
		items = append(items, workflow.ItemStatus{Path: it.Path, Status: workflow.ItemPending})
	}
	return func(ev coder.ItemProgress) {
		if ev.Index < 0 || ev.Index >= len(items) {
			return
		}
		next := workflow.ItemStatus{Path: items[ev.Index].Path, Status: ev.State, Reason: ev.Reason}
		if ev.State == coder.ItemWorking {
			next.Status = workflow.ItemWorking
		}
		if next == items[ev.Index] {
			return
		}
		items[ev.Index] = next
		progress(slices.Clone(items))
	}
}
