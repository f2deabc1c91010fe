package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// TestSolveModelConfig checks that the local commands take their model
// from config (variables, ISSUESMITH_CONFIG_FILE, checks, defaults).
func TestSolveModelConfig(t *testing.T) {
	t.Parallel()
	conf := filepath.Join(t.TempDir(), "issuesmith.env")
	require.NoError(t, os.WriteFile(conf, []byte("ISSUESMITH_MODEL_NAME=from-file\n"+
		"ISSUESMITH_MODEL_BASE_URL=http://localhost:11434/v1\nISSUESMITH_MODEL_PROTOCOL=text\n"), 0o600))
	for _, tc := range []struct {
		name    string
		env     []string
		usage   bool   // a usage mistake (exit status 2)
		errWant string // "" when the config is good
		check   func(t *testing.T, c llm.Config)
	}{
		{name: "no model", env: []string{"ISSUESMITH_APP_ID=1"}, usage: true, errWant: "set ISSUESMITH_MODEL_NAME"},
		{name: "bad value names the variable", env: []string{"ISSUESMITH_MODEL_NAME=m", "ISSUESMITH_MODEL_TEMPERATURE=9"},
			errWant: "ISSUESMITH_MODEL_TEMPERATURE: must be between 0 and 2"},
		{name: "defaults as bot serve", env: []string{"ISSUESMITH_MODEL_NAME=m"}, check: func(t *testing.T, c llm.Config) {
			assert.Equal(t, "https://api.openai.com/v1", c.BaseURL)
			assert.Equal(t, 5*time.Minute, c.Timeout)
			assert.Equal(t, 4, c.Retry.MaxAttempts)
			assert.Equal(t, "ISSUESMITH_MODEL_BASE_URL", c.SettingName("base_url"))
		}},
		{name: "config file", env: []string{"ISSUESMITH_CONFIG_FILE=" + conf}, check: func(t *testing.T, c llm.Config) {
			assert.Equal(t, "from-file", c.Model)
			assert.Equal(t, "http://localhost:11434/v1", c.BaseURL)
			assert.Equal(t, llm.ProtocolText, c.Protocol)
		}},
		{name: "roles and per-role settings", env: []string{"ISSUESMITH_MODEL_ROLES=explorer:a,observer:a,planner:a,coder:b,summarizer:a",
			"ISSUESMITH_MODEL_ROLE_TEMPERATURES=coder:0.2", "ISSUESMITH_MODEL_NO_STREAM=true"}, check: func(t *testing.T, c llm.Config) {
			assert.Equal(t, llm.RoleConfig{Model: "b", Temperature: 0.2}, c.Roles[llm.RoleCoder])
			assert.True(t, c.NoStream)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := solveModelConfig(tc.env)
			if tc.errWant != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.errWant)
				var ee *exitError
				assert.Equal(t, tc.usage, errors.As(err, &ee) && ee.code == 2, "exit status 2")
				return
			}
			require.NoError(t, err)
			tc.check(t, c)
		})
	}
}

// The checkout's .github/issuesmith.yml roles apply to `bot solve` as to
// `bot serve`: the planner asks the repository's planner model with its
// temperature and completion cap; the explorer keeps the server's model.
func TestSolveAppliesTheRepositoryRoles(t *testing.T) {
	t.Parallel()
	script := solveScript()
	script[len(script)-1] = llmtest.Reply(solvePlan).When(llmtest.Expect{Role: "planner", Model: "plan-model"})
	srv := llmtest.NewServer(t, script)
	dir := solveTree(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".github", "issuesmith.yml"), []byte("version: 1\nobserver: false\n"+
		"roles:\n  explorer:\n    max_steps: 6\n  planner:\n    model: plan-model\n    temperature: 0.6\n    max_completion_tokens: 900\n"), 0o644))
	_, progress, err := runSolveCmd(t, srv, "--repo", dir, "--issue", "-", "--plan-only")
	require.NoError(t, err, progress)
	reqs := srv.Requests()
	plan := reqs[len(reqs)-1]
	assert.Equal(t, "plan-model", plan.Model)
	assert.InDelta(t, 0.6, plan.Temperature, 1e-6)
	assert.Equal(t, 900, plan.MaxTokens)
	assert.Equal(t, "scripted", reqs[0].Model)
}

// solveModelConfig is solveModel converted to the client's settings, as
// runSolve converts it: the model settings for local runs read through
// config.ParseModel: the ISSUESMITH_MODEL_* variables (also from
// ISSUESMITH_CONFIG_FILE) with the names, defaults and checks of `bot
// serve`, without the App settings a local run does not need.
func solveModelConfig(environ []string) (llm.Config, error) {
	m, err := solveModel(environ)
	if err != nil {
		return llm.Config{}, err
	}
	return m.LLM()
}
