package coder

// ItemWorking is the state Options.Progress reports when the coder starts on
// a plan item; the item's outcome follows as one of the item statuses
// (ItemDone, ItemFailed, ItemBlocked, ItemSkipped).
const ItemWorking = "working"

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
}

// ended tells Options.Progress the outcome of plan item i; an item without
// a status (its run ended with a Go error) has none to tell.
func (r *run) ended(i int, ir ItemResult) {
	if r.c.opts.Progress != nil && ir.Status != "" {
		r.c.opts.Progress(ItemProgress{Index: i, Path: ir.Path, State: ir.Status, Attempt: ir.Attempts, Reason: ir.Reason})
	}
}
