package llm_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

func TestLedgerConcurrentRecords(t *testing.T) {
	t.Parallel()
	var l llm.Ledger
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			role := []llm.Role{llm.RoleExplorer, llm.RoleCoder}[i%2]
			l.Record("run-1", role, llm.Usage{PromptTokens: 10, CompletionTokens: 2, CachedTokens: 1}, 0.5)
			l.Record("run-2", role, llm.Usage{PromptTokens: 1}, 0)
		}()
	}
	wg.Wait()
	lines, total := l.Run("run-1")
	require.Len(t, lines, 2)
	assert.Equal(t, llm.Line{Role: llm.RoleCoder, Calls: 25, Usage: llm.Usage{PromptTokens: 250, CompletionTokens: 50, CachedTokens: 25}, Cost: 12.5}, lines[0])
	assert.Equal(t, llm.RoleExplorer, lines[1].Role)
	assert.Equal(t, 50, total.Calls)
	assert.Equal(t, 600, total.Usage.Total())
	assert.InDelta(t, 25.0, total.Cost, 1e-9)
	l.Forget("run-1")
	lines, _ = l.Run("run-1")
	assert.Empty(t, lines)
	_, total = l.Run("run-2")
	assert.Equal(t, 50, total.Usage.PromptTokens)
}

func TestLedgerTracksAgentCallsPerRole(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("spec").WithUsage(100, 10, 0).When(llmtest.Expect{Role: "explorer", Model: "big"}),
		llmtest.Reply("plan").WithUsage(50, 5, 0).When(llmtest.Expect{Role: "planner", Model: "small"}),
	})
	c, _ := newClient(t, srv, func(cfg *llm.Config) {
		cfg.Model = "small"
		cfg.Roles = map[llm.Role]llm.RoleConfig{llm.RoleExplorer: {Model: "big"}}
		cfg.Prices = map[string]llm.Price{"big": {Prompt: 10, Completion: 30}, "small": {Prompt: 1, Completion: 2}}
	})
	var l llm.Ledger
	m := l.Track("run-9", c)
	for _, role := range []llm.Role{llm.RoleExplorer, llm.RolePlanner} {
		_, err := (&llm.Agent{Role: role, Model: m}).Run(t.Context(), userMsg("go"))
		require.NoError(t, err)
	}
	lines, total := l.Run("run-9")
	require.Len(t, lines, 2)
	assert.InDelta(t, (100*10+10*30)/1e6, lines[0].Cost, 1e-12)
	assert.Equal(t, llm.RolePlanner, lines[1].Role)
	assert.Equal(t, 165, total.Usage.Total())
}
