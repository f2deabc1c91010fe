package store_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

type benchArgs struct {
	Delivery string `json:"delivery"`
	Body     string `json:"body"`
}

func (benchArgs) Kind() string { return "test_bench_intake" }

// BenchmarkAccept measures Queue.Accept on SQLite with 64 concurrent
// callers (the webhook handler's shape under a burst), no job worked:
// the delivery record's own cost on the store's writer.
//
//	go test ./store -run '^$' -bench Accept -benchtime 5000x
func BenchmarkAccept(b *testing.B) {
	s := storetest.SQLite(b)
	q, err := s.NewQueue(store.QueueOptions{Logger: quiet()})
	if err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("x", 1500) // an intake job's event is about this size
	var next atomic.Int64
	lat := make([]time.Duration, b.N)
	b.ResetTimer()
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N {
					return
				}
				t0 := time.Now()
				id := fmt.Sprintf("id:%d", i)
				if _, err := q.Accept(b.Context(), "issues", []string{id, fmt.Sprintf("body:%d", i)},
					benchArgs{Delivery: id, Body: body}, nil); err != nil {
					b.Error(err)
					return
				}
				lat[i] = time.Since(t0)
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "accepts/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
