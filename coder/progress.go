package coder

import (
	"slices"

	"github.com/issuesmith/issuesmith/work"
)

// ItemWorking is the state Options.Progress reports when the coder starts on
// a plan item; the item's outcome follows as one of the item statuses
// (ItemDone, ItemFailed, ItemBlocked, ItemSkipped).
const ItemWorking = work.ItemWorking

// ItemProgress is one change of a plan item's state, told to
// Options.Progress while Implement or Revise runs.
type ItemProgress struct {
	// Index is the item's 0-based position in the plan (0 for Revise).
	Index int
	// Path is the item's repository-relative slash path.
	Path string
	// State is ItemWorking when the item starts, then its outcome:
	// ItemDone, ItemFailed, ItemBlocked or ItemSkipped.
	State string
	// Attempt is the number of model answers with edits the item has used:
	// 0 when it starts, ItemResult.Attempts with the outcome.
	Attempt int
	// Reason says why an item failed, was blocked or skipped (as
	// ItemResult.Reason); empty otherwise.
	Reason string
}

// started tells Options.Progress that plan item i starts.
func (r *run) started(i int, path string) {
	if r.c.opts.Progress != nil {
		r.c.opts.Progress(ItemProgress{Index: i, Path: path, State: ItemWorking})
	}
	r.setStatus(i, ItemWorking, "")
}

// ended tells Options.Progress the outcome of plan item i; an item without
// a status (its run ended with a Go error) has none to tell.
func (r *run) ended(i int, ir ItemResult) {
	if r.c.opts.Progress != nil && ir.Status != "" {
		r.c.opts.Progress(ItemProgress{Index: i, Path: ir.Path, State: ir.Status, Attempt: ir.Attempts, Reason: ir.Reason})
	}
	if ir.Status != "" {
		r.setStatus(i, ir.Status, ir.Reason)
	}
}

// setStatus records plan item i's status in the run's list (built once,
// from the plan, in plan order) and tells Options.Statuses the whole list
// when it changed.
func (r *run) setStatus(i int, status, reason string) {
	if r.c.opts.Statuses == nil || i < 0 || i >= len(r.statuses) {
		return
	}
	next := work.ItemStatus{Path: r.statuses[i].Path, Status: status, Reason: reason}
	if next == r.statuses[i] {
		return
	}
	r.statuses[i] = next
	r.c.opts.Statuses(slices.Clone(r.statuses))
}
