package coder

import (
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
)

// ItemWorking is the State Options.Progress reports when the coder starts
// on a plan item; the item's outcome follows as one of the item statuses
// (ItemDone, ItemFailed, ItemBlocked, ItemSkipped).
const ItemWorking = work.ItemWorking

// started tells Options.Progress that plan item i starts.
func (r *run) started(i int, path string) {
	r.c.opts.Progress.Emit(work.Event{Kind: work.EventItem, Agent: llm.RoleCoder, Index: i, Path: path, State: ItemWorking})
}

// ended tells Options.Progress the outcome of plan item i; an item without
// a status (its run ended with a Go error) has none to tell.
func (r *run) ended(i int, ir ItemResult) {
	if ir.Status != "" {
		r.c.opts.Progress.Emit(work.Event{Kind: work.EventItem, Agent: llm.RoleCoder, Index: i, Path: ir.Path,
			State: ir.Status, Attempt: ir.Attempts, Reason: ir.Reason})
	}
}
