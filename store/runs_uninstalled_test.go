package store_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
)

// testOpenRunsOf: only the open runs of the installation (and of the
// listed repositories, compared without case, when given).
func testOpenRunsOf(t *testing.T, s *store.Store) {
	ctx := t.Context()
	open := func(owner, repo string, issue int, inst int64) *store.Run {
		r, _, err := s.OpenRun(ctx, store.IssueKey{Owner: owner, Repo: repo, Issue: issue}, inst, "alice")
		require.NoError(t, err)
		return r
	}
	a1, a2, b, _ := open("o", "a", 1, 10), open("o", "a", 2, 10), open("o", "b", 1, 10), open("x", "a", 1, 11)
	done := open("o", "a", 3, 10)
	done.State = store.StateDone
	require.NoError(t, s.SaveRun(ctx, done))
	ids := func(rs []*store.Run) (out []int64) {
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	got, err := s.OpenRunsOf(ctx, 10, []string{"O/A"})
	require.NoError(t, err)
	require.Equal(t, []int64{a1.ID, a2.ID}, ids(got))
	got, err = s.OpenRunsOf(ctx, 10, nil)
	require.NoError(t, err)
	require.Equal(t, []int64{a1.ID, a2.ID, b.ID}, ids(got))
	got, err = s.OpenRunsOf(ctx, 12, nil)
	require.NoError(t, err)
	require.Empty(t, got)
}
