package replay

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
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
	p.Start(3, 0)
	p.Done(results[0])
	require.Contains(t, lines.String(), "a__b-1 resolved (3s) [prompt 74.0k, cached 60.2k, uncached 13.8k, completion 3.1k tokens]")
	p.Done(results[2])
	require.NotContains(t, lines.String(), "a__b-3 error (1s) [prompt")

	var sum bytes.Buffer
	Summary(&sum, results)
	require.Contains(t, sum.String(),
		"tokens over 2 instances: prompt 100.0k (cached 70.0k, 70.0%; uncached 30.0k, 15.0k per instance), completion 4.0k\n")
}
