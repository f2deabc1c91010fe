package store_test

import (
	"testing"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
)

// testAccept: a delivery's keys and its job are one transaction. Accepted:
// both keys recorded, one job. A repeated id or body key: nothing new is
// written (not even the other key). A job that cannot be inserted: no key
// stays recorded, so GitHub's redelivery is handled, not dropped.
func testAccept(t *testing.T, s *store.Store) {
	ctx := t.Context()
	q, err := s.NewQueue(store.QueueOptions{Logger: quiet()})
	require.NoError(t, err)
	jobs := func() int {
		rows, err := q.Jobs(ctx, river.NewJobListParams().Kinds("test_echo").First(100))
		require.NoError(t, err)
		return len(rows)
	}
	has := func(k string) bool {
		ok, err := s.HasDelivery(ctx, k)
		require.NoError(t, err)
		return ok
	}
	dup, err := q.Accept(ctx, "issues", []string{"id:d1", "body:b1"}, echoArgs{Issue: 1, Note: "d1"}, nil)
	require.NoError(t, err)
	require.Empty(t, dup)
	require.True(t, has("id:d1") && has("body:b1"))
	require.Equal(t, 1, jobs())

	dup, err = q.Accept(ctx, "issues", []string{"id:d1", "body:b2"}, echoArgs{Issue: 2, Note: "again"}, nil)
	require.NoError(t, err)
	require.Equal(t, "id:d1", dup)
	require.False(t, has("body:b2"), "a duplicate id records nothing")

	dup, err = q.Accept(ctx, "issues", []string{"id:d2", "body:b1"}, echoArgs{Issue: 3, Note: "replay"}, nil)
	require.NoError(t, err)
	require.Equal(t, "body:b1", dup)
	require.False(t, has("id:d2"), "the replay's id is rolled back with it")
	require.Equal(t, 1, jobs())

	_, err = q.Accept(ctx, "issues", []string{"id:d3", "body:b3"}, echoArgs{Issue: 4, Note: "bad"},
		&river.InsertOpts{Queue: "not a valid queue name!"})
	require.Error(t, err)
	require.False(t, has("id:d3") || has("body:b3"), "a failed insert leaves no key recorded")
	require.Equal(t, 1, jobs())

	_, err = q.Accept(ctx, "issues", nil, echoArgs{Issue: 5}, nil)
	require.Error(t, err)
}
