package preagent

import (
	"fmt"
	"testing"

	"github.com/issuesmith/issuesmith/llm"
)

// BenchmarkLongExplorationPromptTokens runs one long scripted exploration
// (120 steps on a 400-file tree, default 32k-context settings) with
// compression on and off, and reports the total prompt tokens sent in each
// case and their ratio:
//
//	go test ./preagent -run '^$' -bench LongExplorationPromptTokens -benchtime 1x
func BenchmarkLongExplorationPromptTokens(b *testing.B) {
	dir, paths := largeTree(b, 20, 20)
	const steps = 120
	issue := Issue{Title: "Billing rejects requests at the limit",
		Body: "Requests exactly at the limit are rejected with `bytes over`; they should pass."}
	run := func(compressAt int) (total, peak int) {
		ws := openWS(b, dir)
		srv, client := scripted(b, longScript(paths, steps, 0, 1))
		opts := Options{Budget: llm.Budget{MaxSteps: steps}, CompressAt: compressAt, NoObserver: true, NoModelVerdicts: true}
		if _, err := New(client, ws, nil, opts).Explore(b.Context(), issue); err != nil {
			b.Fatal(err)
		}
		memo := tokenMemo{}
		for _, r := range srv.Requests() {
			n := memo.count(r.Messages)
			total += n
			peak = max(peak, n)
		}
		return total, peak
	}
	for i := 0; i < b.N; i++ {
		on, peakOn := run(0)
		off, peakOff := run(-1)
		b.ReportMetric(float64(on), "prompt-tokens-on")
		b.ReportMetric(float64(off), "prompt-tokens-off")
		b.ReportMetric(float64(off)/float64(on), "off/on")
		if i == 0 {
			fmt.Printf("%d steps: compression on %d prompt tokens (peak request %d), off %d (peak %d), ratio %.1fx\n",
				steps, on, peakOn, off, peakOff, float64(off)/float64(on))
		}
	}
}
