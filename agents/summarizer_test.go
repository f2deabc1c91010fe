package agents

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/store/storetest"
)

// The push refresh writes model summaries into the store's cache, with the
// repository's summarizer model (roles.summarizer of .github/issuesmith.yml,
// priced as that model); a second refresh of the same content asks the
// model nothing.
func TestSummaryRefresherFillsTheStoreCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "greet.go"), []byte("package greet\n\n// Hello greets.\nfunc Hello() string { return \"hello\" }\n"), 0o644))
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("Greeting helpers: Hello returns a fixed greeting.").When(llmtest.Expect{Role: "summarizer", Model: "big-coder"}).WithUsage(120, 12, 0),
	})
	ms, err := NewModels(modelEnv(srv.URL()))
	require.NoError(t, err)
	rc, err := config.ParseRepo([]byte("version: 1\nroles:\n  summarizer:\n    model: big-coder\n"))
	require.NoError(t, err)
	st := storetest.SQLite(t)
	r := &Summarizer{Models: ms, Cache: st}

	u, err := r.Refresh(t.Context(), workspace(t, dir), rc)
	require.NoError(t, err)
	require.Equal(t, 120, u.Usage.PromptTokens)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "big-coder", reqs[0].Model, "the repository's summarizer model, not the server's")
	require.InDelta(t, (120*2+12*8)/1e6, u.Cost, 1e-12, "priced as big-coder")
	u, err = r.Refresh(t.Context(), workspace(t, dir), rc)
	require.NoError(t, err)
	require.Zero(t, u.Usage.Total(), "the second refresh is served from the cache")
	var n int
	require.NoError(t, st.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM file_summaries WHERE summary LIKE 'Greeting helpers%'`).Scan(&n))
	require.Equal(t, 1, n)
}
