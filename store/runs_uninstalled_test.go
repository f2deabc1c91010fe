package store_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
)

// testCancelRunsOf: only the open runs of the installation (and of the
// listed repositories, when given) end, as cancelled with the reason.
func testCancelRunsOf(t *testing.T, s *store.Store) {
	ctx := t.Context()
	open := func(owner, repo string, issue int, inst int64) *store.Run {
		r, _, err := s.OpenRun(ctx, store.IssueKey{Owner: owner, Repo: repo, Issue: issue}, inst, "alice")
		require.NoError(t, err)
		return r
	}
	a1, a2, b, other := open("o", "a", 1, 10), open("o", "a", 2, 10), open("o", "b", 1, 10), open("x", "a", 1, 11)
	done := open("o", "a", 3, 10)
	done.State = store.StateDone
	require.NoError(t, s.SaveRun(ctx, done))

	ended, err := s.CancelRunsOf(ctx, 10, []string{"O/A"}, "removed")
	require.NoError(t, err)
	require.Len(t, ended, 2)
	for _, id := range []int64{a1.ID, a2.ID} {
		r, err := s.Run(ctx, id)
		require.NoError(t, err)
		require.Equal(t, store.StateCancelled, r.State)
		require.Equal(t, "removed", r.Reason)
	}
	for id, want := range map[int64]string{b.ID: store.StateActive, other.ID: store.StateActive, done.ID: store.StateDone} {
		r, err := s.Run(ctx, id)
		require.NoError(t, err)
		require.Equal(t, want, r.State)
	}

	ended, err = s.CancelRunsOf(ctx, 10, nil, "uninstalled")
	require.NoError(t, err)
	require.Len(t, ended, 1)
	require.Equal(t, b.ID, ended[0].ID)
	r, err := s.Run(ctx, other.ID)
	require.NoError(t, err)
	require.Equal(t, store.StateActive, r.State, "another installation's run stays")
	ended, err = s.CancelRunsOf(ctx, 10, nil, "again")
	require.NoError(t, err)
	require.Empty(t, ended)
}
