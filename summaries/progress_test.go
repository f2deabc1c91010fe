package summaries_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/summaries"
	"github.com/issuesmith/issuesmith/work"
)

// A build tells Options.Progress one work.EventCount per file parsed and
// per model summary, each stage counting up to its total, from whichever
// worker finished it.
func TestBuildReportsCounts(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, "testdata/summarize.yaml"))
	client, err := llm.NewClient(srv.Config())
	require.NoError(t, err)
	var (
		mu  sync.Mutex
		got []work.Event
	)
	_, err = summaries.Build(t.Context(), open(t, writeTree(t, smallTree)), summaries.Options{Model: client,
		Progress: func(ev work.Event) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, ev)
		}})
	require.NoError(t, err)
	counts := map[string][]int{}
	for _, ev := range got {
		require.Equal(t, work.EventCount, ev.Kind)
		require.Equal(t, llm.RoleSummarizer, ev.Agent)
		want := map[string]int{"parse": len(smallTree), "summarize": 2}[ev.Stage]
		require.Equal(t, want, ev.Of, "stage %q", ev.Stage)
		counts[ev.Stage] = append(counts[ev.Stage], ev.Count)
	}
	for stage := range counts {
		slices.Sort(counts[stage])
	}
	require.Equal(t, map[string][]int{"parse": {1, 2, 3}, "summarize": {1, 2}}, counts)
}
