package llm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// TestDefaultCapPerRole: with no cap set, each role's request carries its
// default (not the server's own, which for llama.cpp and Ollama is none);
// a set cap is sent as set; a stated window lowers only the default, to the
// room the prompt leaves.
func TestDefaultCapPerRole(t *testing.T) {
	t.Parallel()
	ask := func(t *testing.T, srv *llmtest.Server, role llm.Role, edit ...func(*llm.Config)) int {
		c, _ := newClient(t, srv, edit...)
		_, err := c.Chat(t.Context(), llm.Request{Role: role, Messages: userMsg("go")})
		require.NoError(t, err)
		reqs := srv.Requests()
		return reqs[len(reqs)-1].MaxTokens
	}
	script := func(n int) llmtest.Script { return llmtest.Script{llmtest.Reply("ok").Times(n)} }

	srv := llmtest.NewServer(t, script(5))
	for _, role := range []llm.Role{llm.RoleExplorer, llm.RolePlanner, llm.RoleCoder, llm.RoleObserver} {
		assert.Equal(t, llm.DefaultMaxTokens[role], ask(t, srv, role), role)
	}
	assert.Equal(t, 32_768, llm.DefaultMaxTokens[llm.RoleCoder])
	assert.Equal(t, 4_096, llm.DefaultMaxTokens[llm.RoleObserver])
	assert.Equal(t, 900, ask(t, srv, llm.RoleCoder, func(c *llm.Config) { c.MaxTokens = 900 }), "a set cap is sent as set")

	small := llmtest.NewServer(t, script(2), llmtest.WithModels("test-model"), llmtest.WithVLLM(8192))
	got := ask(t, small, llm.RoleCoder)
	assert.Less(t, got, 8192, "a default that does not fit the window is lowered")
	assert.Greater(t, got, 8000, "to the room the short prompt leaves")
	assert.Equal(t, 20_000, ask(t, small, llm.RoleCoder, func(c *llm.Config) { c.MaxTokens = 20_000 }),
		"a set cap is the operator's: sent even when it does not fit")
}
