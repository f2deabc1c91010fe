package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/store/storetest"
)

// The push refresh writes model summaries into the store's cache; a second
// refresh of the same content asks the model nothing.
func TestSummaryRefresherFillsTheStoreCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "greet.go"), []byte("package greet\n\n// Hello greets.\nfunc Hello() string { return \"hello\" }\n"), 0o644))
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("Greeting helpers: Hello returns a fixed greeting.").When(llmtest.Expect{Role: "summarizer"}).WithUsage(120, 12, 0),
	})
	model, err := llm.NewClient(llm.Config{BaseURL: srv.URL(), Model: "test"})
	require.NoError(t, err)
	st := storetest.SQLite(t)
	r := &summaryRefresher{model: model, cache: st}

	u, err := r.Refresh(t.Context(), dir)
	require.NoError(t, err)
	require.Equal(t, 120, u.Usage.PromptTokens)
	u, err = r.Refresh(t.Context(), dir)
	require.NoError(t, err)
	require.Zero(t, u.Usage.Total(), "the second refresh is served from the cache")
	var n int
	require.NoError(t, st.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM file_summaries WHERE summary LIKE 'Greeting helpers%'`).Scan(&n))
	require.Equal(t, 1, n)
}
