package webhook

import (
	"net/http"
	"slices"
	"testing"
	"time"
)

// BenchmarkHandler measures a delivery from the client's side: signature,
// parse, dedupe, a permission check through ghapp against the loopback fake
// GitHub (for "authorised"), dispatch, answer. Run with
//
//	go test ./webhook -run '^$' -bench Handler -benchtime 2000x
func BenchmarkHandler(b *testing.B) {
	for _, bc := range []struct {
		name, file, event string
		want              int
	}{
		{"authorised_label", "issues.labeled", "issues", http.StatusAccepted},
		{"ignored_comment", "issue_comment.created", "issue_comment", http.StatusOK},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := newRig(b, 0)
			m := payload(b, bc.file, r.gh.Installation())
			ds := make([]delivery, b.N)
			for i := range ds {
				ds[i] = r.newDelivery(bc.event, m)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				start := time.Now()
				if code, body := r.send(ds[i]); code != bc.want {
					b.Fatalf("status %d: %s", code, body)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
