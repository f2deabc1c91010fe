package work

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Apply folds the coder's item events into the plan's status list: a
// change of state or reason changes it, a repeat, another kind or an index
// outside the list does not, and the plan's path is kept.
func TestApplyFoldsItemEvents(t *testing.T) {
	t.Parallel()
	items := (&Plan{Items: []Item{{Path: "a.go"}, {Path: "b.go"}}}).Pending()
	require.True(t, Apply(items, Event{Kind: EventItem, Index: 0, Path: "a.go", State: ItemWorking}))
	require.False(t, Apply(items, Event{Kind: EventItem, Index: 0, Path: "a.go", State: ItemWorking}), "a repeat")
	require.False(t, Apply(items, Event{Kind: EventStep, Index: 1, State: ItemDone}), "not an item event")
	require.False(t, Apply(items, Event{Kind: EventItem, Index: 2, State: ItemDone}), "outside the plan")
	require.False(t, Apply(items, Event{Kind: EventItem, Index: -1, State: ItemDone}), "outside the plan")
	require.True(t, Apply(items, Event{Kind: EventItem, Index: 1, Path: "elsewhere.go", State: ItemBlocked, Reason: "blocked pattern"}))
	require.Equal(t, []ItemStatus{{Path: "a.go", Status: ItemWorking}, {Path: "b.go", Status: ItemBlocked, Reason: "blocked pattern"}}, items)
}

// A nil Progress hears nothing and Then chains in order, either side nil.
func TestProgressEmitAndThen(t *testing.T) {
	t.Parallel()
	var nothing Progress
	nothing.Emit(Event{Kind: EventStep}) // must not panic
	var heard []string
	hear := func(who string) Progress {
		return func(ev Event) { heard = append(heard, who+" "+string(ev.Kind)) }
	}
	hear("first").Then(hear("second")).Emit(Event{Kind: EventStage})
	nothing.Then(hear("only")).Emit(Event{Kind: EventCount})
	hear("alone").Then(nil).Emit(Event{Kind: EventItem})
	require.Equal(t, []string{"first stage", "second stage", "only count", "alone item"}, heard)
	require.Nil(t, nothing.Then(nil))
}
