package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/config"
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
	require.Equal(t, 120, u.PromptTokens)
	u, err = r.Refresh(t.Context(), dir)
	require.NoError(t, err)
	require.Zero(t, u.Total(), "the second refresh is served from the cache")
	var n int
	require.NoError(t, st.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM file_summaries WHERE summary LIKE 'Greeting helpers%'`).Scan(&n))
	require.Equal(t, 1, n)
}

// A repository's roles.<role>.model reaches the endpoint for that role only.
func TestModelsPerRepositoryRole(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("a").When(llmtest.Expect{Role: "coder", Model: "big-coder"}),
		llmtest.Reply("b").When(llmtest.Expect{Role: "explorer", Model: "house-model"}),
	})
	base := llm.Config{BaseURL: srv.URL(), Model: "house-model"}
	def, err := llm.NewClient(base)
	require.NoError(t, err)
	ms := &models{base: base, def: def}
	cfg, err := config.ParseRepo([]byte("version: 1\nroles:\n  coder:\n    model: big-coder\n"))
	require.NoError(t, err)
	m, err := ms.forRepo(cfg)
	require.NoError(t, err)
	for _, role := range []llm.Role{llm.RoleCoder, llm.RoleExplorer} {
		_, err := m.Chat(t.Context(), llm.Request{Role: role, Messages: []llm.Message{{Role: llm.User, Content: "hi"}}})
		require.NoError(t, err)
	}
	same, err := ms.forRepo(config.DefaultRepo())
	require.NoError(t, err)
	require.Same(t, def, same, "no override: the server's client")
}
