package replay

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
)

// TestUsageInLinesAndSummary: each instance's line and the summary show
// prompt, cached, uncached and completion tokens.
func TestUsageInLinesAndSummary(t *testing.T) {
	t.Parallel()
	results := []Result{
		{ID: "a__b-1", Status: StatusResolved, Wall: 3, Usage: llm.Usage{PromptTokens: 74_000, CachedTokens: 60_200, CompletionTokens: 3_100}},
		{ID: "a__b-2", Status: StatusResolved, Wall: 2, Usage: llm.Usage{PromptTokens: 26_000, CachedTokens: 9_800, CompletionTokens: 900}},
		{ID: "a__b-3", Status: StatusError, Wall: 1},
	}
	var lines bytes.Buffer
	p := &Lines{W: &lines}
	p.Hear(work.Event{Kind: work.EventCount, Stage: "instances", Of: 3})
	p.Hear(DoneEvent(results[0]))
	require.Contains(t, lines.String(), "a__b-1 resolved (3s) [prompt 74.0k, cached 60.2k, uncached 13.8k, completion 3.1k tokens]")
	p.Hear(DoneEvent(results[2]))
	require.NotContains(t, lines.String(), "a__b-3 error (1s) [prompt")

	var sum bytes.Buffer
	Summary(&sum, results)
	require.Contains(t, sum.String(),
		"tokens over 2 instances: prompt 100.0k (cached 70.0k, 70.0%; uncached 30.0k, 15.0k per instance), completion 4.0k\n")
}

// TestPriceAppliesToEveryResult: --price prices each result, those already
// in the results file included, and the summary totals the cost.
func TestPriceAppliesToEveryResult(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "results.jsonl")
	var file bytes.Buffer
	for _, r := range []Result{
		{ID: "a__b-1", Status: StatusResolved, Usage: llm.Usage{PromptTokens: 1_000_000, CachedTokens: 800_000, CompletionTokens: 10_000}},
		{ID: "a__b-2", Status: StatusResolved, Usage: llm.Usage{PromptTokens: 200_000, CompletionTokens: 5_000}, Cost: 99},
	} {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		file.Write(append(b, '\n'))
	}
	require.NoError(t, os.WriteFile(out, file.Bytes(), 0o644))
	r := &Runner{Out: out, Price: &llm.Price{Prompt: 2, Completion: 8, Cached: 0.5}}
	results, err := r.Run(t.Context(), []Instance{{ID: "a__b-1"}, {ID: "a__b-2"}})
	require.NoError(t, err)
	// 200k uncached × $2 + 800k cached × $0.5 + 10k × $8 per million.
	require.InDelta(t, 0.4+0.4+0.08, results[0].Cost, 1e-9)
	require.InDelta(t, 0.4+0.04, results[1].Cost, 1e-9, "the price given now, not the one recorded")
	var sum bytes.Buffer
	Summary(&sum, results)
	require.Contains(t, sum.String(), "cost: $1.32 ($0.6600 per instance)\n")
	var lines bytes.Buffer
	(&Lines{W: &lines}).Hear(DoneEvent(results[0]))
	require.Contains(t, lines.String(), "completion 10.0k tokens, $0.8800]")
}
