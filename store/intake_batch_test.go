package store_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

// On SQLite concurrent Accepts commit in groups: 200 at once, each id sent
// twice and one of them with a job that cannot be inserted, end as one
// by one would: each id accepted once and its repeat a duplicate, the
// failed one with no key recorded, one job per accepted delivery.
func TestAcceptGroupsConcurrentDeliveries(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	ctx := t.Context()
	q, err := s.NewQueue(store.QueueOptions{Logger: quiet()})
	require.NoError(t, err)
	const n = 100
	type result struct {
		dup string
		err error
	}
	results := make([]result, 2*n)
	var wg sync.WaitGroup
	for i := range 2 * n {
		wg.Go(func() {
			d := i % n
			var opts *river.InsertOpts
			if d == 7 {
				opts = &river.InsertOpts{Queue: "not a valid queue name!"}
			}
			dup, err := q.Accept(ctx, "issues", []string{fmt.Sprintf("id:%d", d), fmt.Sprintf("body:%d-%d", d, i)},
				benchArgs{Delivery: fmt.Sprint(d)}, opts)
			results[i] = result{dup, err}
		})
	}
	wg.Wait()
	for d := range n {
		a, b := results[d], results[d+n]
		if d == 7 {
			require.Error(t, a.err)
			require.Error(t, b.err)
			for _, k := range []string{"id:7", "body:7-7", "body:7-107"} {
				ok, err := s.HasDelivery(ctx, k)
				require.NoError(t, err)
				require.False(t, ok, "a failed insert leaves no key recorded: %s", k)
			}
			continue
		}
		require.NoError(t, a.err)
		require.NoError(t, b.err)
		require.ElementsMatch(t, []string{"", fmt.Sprintf("id:%d", d)}, []string{a.dup, b.dup}, "delivery %d", d)
	}
	rows, err := q.Jobs(ctx, river.NewJobListParams().Kinds("test_bench_intake").First(10*n))
	require.NoError(t, err)
	require.Len(t, rows, n-1)
}
