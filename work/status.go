package work

// ItemStatus is where one plan item stands while the coder works and after:
// the coder reports the whole list, in plan order, whenever one changes, and
// the workflow shows it in the progress comment and the pull request.
type ItemStatus struct {
	Path   string
	Status string // ItemPending, ItemWorking, then the outcome
	Reason string // why an item failed, was blocked or skipped
}

// Item statuses: pending and working while the coder runs, then one outcome.
const (
	ItemPending = "pending" // not started yet
	ItemWorking = "working" // the coder is on it
	ItemDone    = "done"    // every step's edits applied and validated
	ItemFailed  = "failed"  // attempts or budget exhausted; Reason says why
	ItemBlocked = "blocked" // the path matches a blocked glob; nothing written
	ItemSkipped = "skipped" // nothing to do (e.g. deleting a missing file)
)

// Pending is every item of p as ItemPending, in plan order: the status list
// before the coder starts.
func (p *Plan) Pending() []ItemStatus {
	out := make([]ItemStatus, len(p.Items))
	for i, it := range p.Items {
		out[i] = ItemStatus{Path: it.Path, Status: ItemPending}
	}
	return out
}

// Apply folds ev, an EventItem, into items (the plan-ordered list Pending
// made): the item at ev.Index takes ev.State and ev.Reason, its path kept.
// It reports whether items changed; any other event, or an index outside
// the list, changes nothing.
func Apply(items []ItemStatus, ev Event) bool {
	if ev.Kind != EventItem || ev.Index < 0 || ev.Index >= len(items) {
		return false
	}
	next := ItemStatus{Path: items[ev.Index].Path, Status: ev.State, Reason: ev.Reason}
	if next == items[ev.Index] {
		return false
	}
	items[ev.Index] = next
	return true
}
