package workflow

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

// The store keeps the states lifecycle decides, by the same words: its SQL
// reads "active" and "waiting" as open.
func TestStoreKeepsLifecycleStates(t *testing.T) {
	for store, life := range map[string]string{store.StateActive: lifecycle.Active, store.StateWaiting: lifecycle.Waiting,
		store.StateDone: lifecycle.Done, store.StateFailed: lifecycle.Failed, store.StateCancelled: lifecycle.Cancelled} {
		require.Equal(t, store, life)
	}
}

// A row read into the core's Run and written back is the same row: no
// field is lost at the boundary.
func TestRunRowRoundTrip(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	w := &store.Run{ID: 7, InstallationID: 42, IssueKey: store.IssueKey{Owner: "o", Repo: "r", Issue: 3}, Requester: "alice",
		TriggerLabel: "bot", State: store.StateWaiting, Stage: StageApproval, Step: "waiting", Reason: "why",
		ProgressCommentID: 1, SpecCommentID: 2, PlanCommentID: 3, SpecBody: "spec", PlanBody: "plan", Branch: "b",
		PRNumber: 9, PRURL: "u", PromptTokens: 10, CompletionTokens: 11, Cost: 0.5, CreatedAt: at, UpdatedAt: at.Add(time.Second),
		Version: 4}
	r := runOf(w)
	require.Equal(t, "o/r#3", r.IssueKey.String())
	require.True(t, r.Open())
	require.Equal(t, w, r.row())
}
