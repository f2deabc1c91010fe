package store_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
)

// testIssueLabels: the first set of an issue's labels is not "seen"; each
// later swap returns the set recorded before it, in a transaction that
// keeps nothing when it rolls back; owner and repo ignore case; and the
// installations a repository is known under are listed.
func testIssueLabels(t *testing.T, s *store.Store) {
	ctx := t.Context()
	before, seen, err := s.SwapIssueLabels(ctx, "Octo", "App", 7, []string{"bug", "issuesmith"})
	require.NoError(t, err)
	require.False(t, seen)
	require.Nil(t, before)

	q, err := s.NewQueue(store.QueueOptions{Logger: quiet()})
	require.NoError(t, err)
	require.Error(t, q.InTx(ctx, func(tx *store.Tx) error {
		before, seen, err := tx.SwapIssueLabels(ctx, "octo", "app", 7, nil)
		require.NoError(t, err)
		require.True(t, seen)
		require.Equal(t, []string{"bug", "issuesmith"}, before)
		return errors.New("roll back")
	}))
	before, seen, err = s.SwapIssueLabels(ctx, "octo", "app", 7, nil)
	require.NoError(t, err)
	require.True(t, seen)
	require.Equal(t, []string{"bug", "issuesmith"}, before, "the rolled-back swap kept nothing")
	before, seen, err = s.SwapIssueLabels(ctx, "octo", "app", 7, []string{"issuesmith"})
	require.NoError(t, err)
	require.True(t, seen)
	require.Empty(t, before)
	_, seen, err = s.SwapIssueLabels(ctx, "octo", "app", 8, nil)
	require.NoError(t, err)
	require.False(t, seen, "another issue")

	require.NoError(t, q.InTx(ctx, func(tx *store.Tx) error {
		if _, _, err := tx.OpenRun(ctx, store.IssueKey{Owner: "octo", Repo: "app", Issue: 1}, -1, "mona"); err != nil {
			return err
		}
		return tx.NoteRepo(ctx, 11, "octo", "app")
	}))
	ids, err := s.RepoInstallations(ctx, "OCTO", "app")
	require.NoError(t, err)
	require.ElementsMatch(t, []int64{-1, 11}, ids)
	ids, err = s.RepoInstallations(ctx, "octo", "other")
	require.NoError(t, err)
	require.Empty(t, ids)
}
