package coder

import (
	"testing"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
	"github.com/stretchr/testify/require"
)

// Options.Progress hears every item's start and outcome, in plan order,
// with attempts and reasons: an item that fails after two refused answers,
// a blocked one (no start), a done one, a delete of a missing file
// (skipped) and a delete (done, no model call).
func TestImplementReportsItemProgress(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{"a.go": "package p\n\nfunc A() int { return 1 }\n",
		"b.go": "package p\n\nfunc B() int { return 1 }\n", "old.go": "package p\n"})
	var got []work.Event
	c, srv := scripted(t, "exhausted", Options{Attempts: 2, SkipGoChecks: true,
		Progress: func(ev work.Event) { got = append(got, ev) }})
	res, err := c.Implement(t.Context(), ws, nil, &work.Plan{Items: []work.Item{
		item("a.go", work.ActionModify, "Change A."),
		item(".github/workflows/ci.yml", work.ActionModify, "Run on push."),
		item("b.go", work.ActionModify, "Make `B` return 2."),
		item("gone.go", work.ActionDelete),
		item("old.go", work.ActionDelete),
	}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	require.Len(t, got, 9)
	require.Contains(t, got[1].Reason, "no clean edit after 2 attempts")
	require.Contains(t, got[2].Reason, "blocked pattern")
	got[1].Reason, got[2].Reason = "", ""
	require.Equal(t, items(
		work.Event{Index: 0, Path: "a.go", State: ItemWorking},
		work.Event{Index: 0, Path: "a.go", State: ItemFailed, Attempt: 2},
		work.Event{Index: 1, Path: ".github/workflows/ci.yml", State: ItemBlocked},
		work.Event{Index: 2, Path: "b.go", State: ItemWorking},
		work.Event{Index: 2, Path: "b.go", State: ItemDone, Attempt: 1},
		work.Event{Index: 3, Path: "gone.go", State: ItemWorking},
		work.Event{Index: 3, Path: "gone.go", State: ItemSkipped, Reason: "the file does not exist"},
		work.Event{Index: 4, Path: "old.go", State: ItemWorking},
		work.Event{Index: 4, Path: "old.go", State: ItemDone},
	), got)
	var outcomes []string
	for _, p := range got {
		if p.State != ItemWorking {
			outcomes = append(outcomes, p.State)
		}
	}
	var statuses []string
	for _, it := range res.Items {
		statuses = append(statuses, it.Status)
	}
	require.Equal(t, statuses, outcomes, "the outcomes are the result's")
}

// Revise reports its one item the same way, a declined comment as skipped
// with the model's explanation.
func TestReviseReportsItemProgress(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{"calc.go": calcGo})
	var got []work.Event
	c, _ := scripted(t, "revise_decline", Options{SkipGoChecks: true, Progress: func(ev work.Event) { got = append(got, ev) }})
	_, err := c.Revise(t.Context(), ws, ReviewRequest{Path: "calc.go", Lines: LineRange{Start: 4}, Comment: "Why not use math.Abs here?"})
	require.NoError(t, err)
	require.Equal(t, items(
		work.Event{Index: 0, Path: "calc.go", State: ItemWorking},
		work.Event{Index: 0, Path: "calc.go", State: ItemSkipped, Attempt: 1,
			Reason: "no code change: Add works on ints; math.Abs takes float64, so no change is needed."},
	), got)
}

// items is evs as the coder's EventItem events.
func items(evs ...work.Event) []work.Event {
	for i := range evs {
		evs[i].Kind, evs[i].Agent = work.EventItem, llm.RoleCoder
	}
	return evs
}
