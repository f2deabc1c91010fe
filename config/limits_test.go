package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
)

// TestLimitsLowerNeverRaise: the repository's file lowers the server's
// limits; asking more gets the ceiling and a note naming the key and the
// server's variable; left out, the server's value applies.
func TestLimitsLowerNeverRaise(t *testing.T) {
	t.Parallel()
	s, err := ParseServer(append(minimal(), "ISSUESMITH_LIMIT_RUN_TOKENS=1000000", "ISSUESMITH_LIMIT_STAGE_TOKENS=500000",
		"ISSUESMITH_LIMIT_REPO_DAY_COST_USD=0"))
	require.NoError(t, err)
	c, err := ParseRepo([]byte(`version: 1
roles:
  coder: {max_tokens: 900000}
  planner: {max_tokens: 50000}
limits:
  run_tokens: 3000000
  run_cost_usd: 2.5
  day_cost_usd: 7
`))
	require.NoError(t, err)
	got, notes := s.Limits.For(c)
	assert.Equal(t, Limit{Tokens: 1_000_000, CostUSD: 2.5}, got.Run)
	assert.Equal(t, Limit{Tokens: 50_000_000, CostUSD: 7}, got.RepoDay, "no server ceiling: the repository's value")
	assert.Equal(t, Limit{Tokens: 100_000_000, CostUSD: 200}, got.InstallationDay, "the installation's are the server's alone")
	assert.Equal(t, 500_000, c.Role(llm.RoleCoder).MaxTokens)
	assert.Equal(t, 50_000, c.Role(llm.RolePlanner).MaxTokens)
	assert.Equal(t, 500_000, c.Role(llm.RoleSummarizer).MaxTokens, "a default above the ceiling is lowered without a note")
	assert.Equal(t, []string{
		"`roles.coder.max_tokens` asks for 900,000; the server's ceiling of 500,000 (ISSUESMITH_LIMIT_STAGE_TOKENS) applies",
		"`limits.run_tokens` asks for 3,000,000; the server's ceiling of 1,000,000 (ISSUESMITH_LIMIT_RUN_TOKENS) applies",
	}, notes)
}

// TestLimitsBadInput: a negative or non-numeric limit names its key.
func TestLimitsBadInput(t *testing.T) {
	t.Parallel()
	_, err := ParseServer(append(minimal(), "ISSUESMITH_LIMIT_RUN_COST_USD=-1"))
	require.ErrorContains(t, err, "ISSUESMITH_LIMIT_RUN_COST_USD: must not be negative")
	_, err = ParseServer(append(minimal(), "ISSUESMITH_LIMIT_REPO_DAY_TOKENS=lots"))
	require.ErrorContains(t, err, "ISSUESMITH_LIMIT_REPO_DAY_TOKENS")
	_, err = ParseServer(append(minimal(), "ISSUESMITH_LOOP_MAX_PER_HOUR=0"))
	require.ErrorContains(t, err, "ISSUESMITH_LOOP_MAX_PER_HOUR: must be at least 1")
	_, err = ParseServer(append(minimal(), "ISSUESMITH_BOTS=renovate[bot],not a login"))
	require.ErrorContains(t, err, "ISSUESMITH_BOTS")
	s, err := ParseServer(append(minimal(), "ISSUESMITH_BOTS=renovate[bot],Other-Bot"))
	require.NoError(t, err)
	assert.True(t, s.Limits.IsBot("other-bot"))
	assert.False(t, s.Limits.IsBot("alice"))

	_, err = ParseRepo([]byte("version: 1\nlimits:\n  day_tokens: -5\n"))
	var re *RepoError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "limits.day_tokens", re.Key)
	assert.Equal(t, 3, re.Line)
	_, err = ParseRepo([]byte("version: 1\nlimits:\n  run_cost_usd: plenty\n"))
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "limits.run_cost_usd", re.Key)
}
