package workflow_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// While the coder works, the progress comment lists the plan's items with
// the states the coder's item events give them; it is edited once per
// change of state, and a repeated event edits nothing.
func TestProgressShowsPlanItemsWhileCoding(t *testing.T) {
	t.Parallel()
	ag := &agents{}
	h := newHarness(t, ag)
	const editOp = "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}"
	var (
		seen  []string
		edits []int
	)
	ag.mu.Lock()
	ag.afterProgress = func() {
		seen = append(seen, h.botComments()["progress"][0].Body)
		edits = append(edits, h.gh.Calls(editOp))
	}
	ag.mu.Unlock()
	h.openPR()

	require.Len(t, seen, 4, "two items, each reported twice")
	require.Contains(t, seen[0], "  - `greet.go` — ⏳ **working on it**\n  - `greet_test.go` — ⬜ to do\n")
	require.Contains(t, seen[2], "  - `greet.go` — ✅ done\n  - `greet_test.go` — ⏳ **working on it**\n")
	require.Equal(t, edits[0], edits[1], "a repeated report edits nothing")
	require.Equal(t, edits[2], edits[3], "a repeated report edits nothing")
	require.Equal(t, edits[1]+2, edits[2], "one edit per change of state: greet.go done, then greet_test.go working")
	final := h.botComments()["progress"][0].Body
	require.Contains(t, final, "issuesmith: done")
	require.Contains(t, final, "  - `greet.go` — ✅ done\n  - `greet_test.go` — ✅ done\n")
	require.NotContains(t, final, "- [", "no task-list box in the progress comment: ticking one would do nothing")
}
