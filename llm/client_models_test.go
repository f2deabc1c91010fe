package llm_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// CheckListed reads GET /models: a listed model passes, a missing one is
// ErrModelNotListed naming the role's setting, a server without /models is
// not held against the model; no scripted reply is spent.
func TestCheckListed(t *testing.T) {
	t.Parallel()
	listing := llmtest.NewServer(t, nil, llmtest.WithModels("test-model", "coder-model"))
	c, _ := newClient(t, listing, func(cfg *llm.Config) {
		cfg.Roles = map[llm.Role]llm.RoleConfig{llm.RoleCoder: {Model: "coder-modle"}}
	})
	require.NoError(t, c.CheckListed(t.Context(), llm.RoleExplorer))
	err := c.CheckListed(t.Context(), llm.RoleCoder)
	require.ErrorIs(t, err, llm.ErrModelNotListed)
	require.ErrorContains(t, err, `coder "coder-modle" (setting roles.coder.model)`)
	require.ErrorContains(t, err, "coder-model")
	require.NotContains(t, err.Error(), "sk-test-key")

	bare := llmtest.NewServer(t, nil)
	c, _ = newClient(t, bare)
	require.NoError(t, c.CheckListed(t.Context(), llm.RoleExplorer), "no /models: not checked")
	require.Empty(t, bare.Requests(), "listing models plays no exchange")
}
