package llm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
)

func TestConfigValidateNamesTheSetting(t *testing.T) {
	t.Parallel()
	ok := llm.Config{BaseURL: "https://api.deepseek.com/v1", Model: "deepseek-chat"}
	require.NoError(t, ok.Validate())
	for _, tc := range []struct {
		name string
		edit func(*llm.Config)
		want string
	}{
		{"no base url", func(c *llm.Config) { c.BaseURL = "" }, "llm.base_url is empty"},
		{"relative base url", func(c *llm.Config) { c.BaseURL = "api.openai.com/v1" }, "llm.base_url"},
		{"no model", func(c *llm.Config) { c.Model = "" }, "llm.roles.explorer.model"},
		{"partial roles", func(c *llm.Config) {
			c.Model = ""
			c.Roles = map[llm.Role]llm.RoleConfig{
				llm.RoleExplorer: {Model: "a"}, llm.RoleObserver: {Model: "a"}, llm.RolePlanner: {Model: "a"}, llm.RoleCoder: {Model: "a"},
			}
		}, "llm.roles.summarizer.model"},
		{"bad protocol", func(c *llm.Config) { c.Protocols = map[string]llm.Protocol{"m": "xml"} }, "llm.protocols.m"},
		{"bad role protocol", func(c *llm.Config) {
			c.Roles = map[llm.Role]llm.RoleConfig{llm.RoleCoder: {Protocol: "json"}}
		}, "llm.roles.coder.protocol"},
		{"negative price", func(c *llm.Config) { c.Prices = map[string]llm.Price{"m": {Prompt: -1}} }, "llm.prices.m"},
		{"temperature", func(c *llm.Config) { c.Temperature = 3 }, "llm.temperature"},
		{"timeout", func(c *llm.Config) { c.Timeout = -1 }, "llm.timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			err := c.Validate()
			require.ErrorIs(t, err, llm.ErrConfig)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestConfigOverridePerRepository(t *testing.T) {
	t.Parallel()
	base := llm.Config{
		BaseURL: "http://localhost:11434/v1", Model: "qwen2.5-coder", Temperature: 0.2,
		Roles: map[llm.Role]llm.RoleConfig{llm.RoleCoder: {Model: "big", MaxTokens: 8000}},
	}
	got := base.Override(map[llm.Role]llm.RoleConfig{
		llm.RoleCoder:    {Temperature: 0.7},
		llm.RoleExplorer: {Model: "llama3", Protocol: llm.ProtocolText},
	})
	require.NoError(t, got.Validate())
	assert.Equal(t, llm.RoleConfig{Model: "big", MaxTokens: 8000, Temperature: 0.7}, got.Roles[llm.RoleCoder])
	assert.Equal(t, llm.RoleConfig{Model: "llama3", Protocol: llm.ProtocolText}, got.Roles[llm.RoleExplorer])
	assert.Equal(t, llm.RoleConfig{Model: "big", MaxTokens: 8000}, base.Roles[llm.RoleCoder], "the server config is not modified")

	c, err := llm.NewClient(got)
	require.NoError(t, err)
	assert.Equal(t, llm.ProtocolText, c.Protocol(llm.RoleExplorer))
	assert.Equal(t, llm.ProtocolTools, c.Protocol(llm.RoleCoder))
	assert.Equal(t, "qwen2.5-coder", c.ModelName(llm.RolePlanner))
	assert.Equal(t, "big", c.ModelName(llm.RoleApply), "the apply role falls back to the coder's model")
	own, err := llm.NewClient(got.Override(map[llm.Role]llm.RoleConfig{llm.RoleApply: {Model: "small"}}))
	require.NoError(t, err)
	assert.Equal(t, "small", own.ModelName(llm.RoleApply))
}

func TestSettingNamesFollowTheOperatorsVocabulary(t *testing.T) {
	t.Parallel()
	env := map[string]string{"base_url": "ISSUESMITH_MODEL_BASE_URL", "model": "ISSUESMITH_MODEL_NAME"}
	c := llm.Config{SettingName: func(k string) string { return env[k] }}
	err := c.Validate()
	require.ErrorIs(t, err, llm.ErrConfig)
	assert.Contains(t, err.Error(), "ISSUESMITH_MODEL_BASE_URL is empty")
	c.BaseURL = "http://localhost:1/v1"
	err = c.Validate()
	assert.Contains(t, err.Error(), "set ISSUESMITH_MODEL_NAME or llm.roles.explorer.model", "unmapped keys keep llm.<key>")
}
