package store_test

import (
	"fmt"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
)

// testUnique: the unique options every job kind takes from the store
// refuse a duplicate while the first job waits or runs, in each of those
// states, and accept it once the first ended (UniqueUntilDone: once it
// was cancelled or discarded, not after it completed).
func testUnique(t *testing.T, s *store.Store) {
	ctx := t.Context()
	q, err := s.NewQueue(store.QueueOptions{Logger: quiet()})
	require.NoError(t, err)
	setState := func(id int64, state rivertype.JobState) {
		t.Helper()
		// River's constraint: a finalized job has finalized_at, others not.
		_, err := s.DB().ExecContext(ctx, fmt.Sprintf(`UPDATE river_job SET state = '%[1]s',
			finalized_at = CASE WHEN '%[1]s' IN ('completed', 'cancelled', 'discarded') THEN created_at END WHERE id = %[2]d`,
			state, id))
		require.NoError(t, err)
	}
	issue := 0
	try := func(opts river.UniqueOpts, state rivertype.JobState, refused bool) {
		t.Helper()
		issue++
		io := &river.InsertOpts{UniqueOpts: opts}
		first, skipped, err := q.Insert(ctx, echoArgs{Issue: issue, Stage: "plan", Note: "first"}, io)
		require.NoError(t, err)
		require.False(t, skipped)
		setState(first, state)
		second, skipped, err := q.Insert(ctx, echoArgs{Issue: issue, Stage: "plan", Note: "again"}, io)
		require.NoError(t, err)
		require.Equal(t, refused, skipped, "a duplicate of a %s job refused", state)
		if refused {
			require.Equal(t, first, second)
		} else {
			require.NotEqual(t, first, second)
		}
	}
	queued := []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
		rivertype.JobStateRunning, rivertype.JobStateScheduled}
	require.ElementsMatch(t, queued, store.QueuedStates())
	for _, st := range queued {
		try(store.UniqueWhileQueued(), st, true)
		try(store.UniqueUntilDone(), st, true)
	}
	try(store.UniqueWhileQueued(), rivertype.JobStateCompleted, false)
	try(store.UniqueUntilDone(), rivertype.JobStateCompleted, true)
	for _, st := range []rivertype.JobState{rivertype.JobStateCancelled, rivertype.JobStateDiscarded} {
		try(store.UniqueWhileQueued(), st, false)
		try(store.UniqueUntilDone(), st, false)
	}
}
