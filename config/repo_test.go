package config

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMissingFileMeansDefaults(t *testing.T) {
	t.Parallel()
	c, err := ParseRepo(nil)
	require.NoError(t, err)
	assert.Equal(t, DefaultRepo(), c)
	assert.Equal(t, "issuesmith", c.Label)
	assert.True(t, c.Draft)
	assert.False(t, c.RunCommands)
}

// TestExampleFileIsTheDefaults keeps the shipped example honest: every key
// written out, every value the default (the checks list aside).
func TestExampleFileIsTheDefaults(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../.github/issuesmith.example.yml")
	require.NoError(t, err)
	c, err := ParseRepo(b)
	require.NoError(t, err)
	want := DefaultRepo()
	want.Checks = []Check{{Name: "tests", Run: "go test ./..."}}
	assert.Equal(t, want, c)
}

// TestDefaultsBlockWorkflowsAndActions: composite actions under
// .github/actions run inside workflows with the repository's secrets, so they
// are as off-limits as the workflow files themselves.
func TestDefaultsBlockWorkflowsAndActions(t *testing.T) {
	t.Parallel()
	c := DefaultRepo()
	for p, want := range map[string]bool{
		".github/workflows/ci.yml": true, ".github/actions/setup/action.yml": true,
		"./.github/actions/setup/run.sh": true, ".github/CODEOWNERS": false, "actions/x.go": false,
	} {
		assert.Equal(t, want, c.Blocked(p), p)
	}
}

func TestPartialFileKeepsOtherDefaults(t *testing.T) {
	t.Parallel()
	c, err := ParseRepo([]byte(`version: 1
label: ai
auto_implement: true
roles:
  coder:
    model: big-coder
    max_steps: 12
blocked_paths: [secrets/**, "*.pem"]
run_commands: true
checks:
  - {name: unit, run: make test}
`))
	require.NoError(t, err)
	assert.Equal(t, "ai", c.Label)
	assert.True(t, c.AutoImplement)
	assert.True(t, c.Draft, "default kept")
	coder := c.Role(llm.RoleCoder)
	assert.Equal(t, "big-coder", coder.Model)
	assert.Equal(t, 12, coder.MaxSteps)
	assert.Equal(t, 600_000, coder.MaxTokens, "default kept inside a role")
	assert.Equal(t, llm.Budget{MaxSteps: 12, MaxTokens: 600_000, MaxCost: 2, MaxWall: 30 * time.Minute}, coder.Budget())
	assert.Equal(t, 40, c.Role(llm.RoleExplorer).MaxSteps, "other roles untouched")
	for p, want := range map[string]bool{
		"secrets/a/b.txt": true, "secrets": true, "key.pem": true, "sub/key.pem": false,
		".git/config": true, "./.git/HEAD": true, "main.go": false, ".github/workflows/ci.yml": false,
	} {
		assert.Equal(t, want, c.Blocked(p), p)
	}
}

func TestInvalidFileNamesKeyAndLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml string
		key        string
		line       int
		msg        string
	}{
		{"unknown top-level key", "version: 1\nlabel: x\nauto_merge: true\n", "auto_merge", 3, "unknown key"},
		{"typo inside a role", "version: 1\nroles:\n  coder:\n    max_step: 3\n", "roles.coder.max_step", 4, "unknown key"},
		{"unknown role", "version: 1\nroles:\n  reviewer: {}\n", "roles.reviewer", 3, "unknown role"},
		{"wrong type", "version: 1\ndraft: maybe\n", "draft", 2, "want true or false"},
		{"number as text", "version: 1\nroles:\n  planner:\n    max_tokens: lots\n", "roles.planner.max_tokens", 4, "want a whole number"},
		{"bad duration", "version: 1\nroles:\n  coder:\n    timeout: forever\n", "roles.coder.timeout", 4, "not a duration"},
		{"list expected", "version: 1\nblocked_paths: vendor/**\n", "blocked_paths", 2, "want a list of strings"},
		{"check without command", "version: 1\nchecks:\n  - name: lint\n", "checks", 2, "no run command"},
		{"unknown key in a check", "version: 1\nchecks:\n  - name: lint\n    cmd: make lint\n", "checks[0].cmd", 4, "unknown key"},
		{"missing version", "label: x\n", "version", 1, "missing"},
		{"future version", "version: 2\n", "version", 1, "unsupported version 2"},
		{"empty label", "version: 1\nlabel: \"\"\n", "label", 2, "must not be empty"},
		{"negative budget", "version: 1\nroles:\n  coder:\n    max_steps: -1\n", "roles.coder.max_steps", 4, "must not be negative"},
		{"negative reply cap", "version: 1\nroles:\n  coder:\n    max_completion_tokens: -5\n", "roles.coder.max_completion_tokens", 4, "must not be negative"},
		{"temperature too high", "version: 1\nroles:\n  planner:\n    model: m\n    temperature: 2.5\n", "roles.planner.temperature", 5, "between 0 and 2"},
		{"temperature as text", "version: 1\nroles:\n  planner:\n    temperature: warm\n", "roles.planner.temperature", 4, "want a number"},
		{"unknown protocol", "version: 1\nroles:\n  observer:\n    protocol: json\n", "roles.observer.protocol", 4, `want "tools" or "text", got "json"`},
		{"too many fix rounds", "version: 1\nci:\n  fix_rounds: 50\n", "ci.fix_rounds", 3, "must be 0 (off) to 10"},
		{"unknown ci key", "version: 1\nci:\n  rounds: 2\n", "ci.rounds", 3, "unknown key"},
		{"bad glob", "version: 1\nblocked_paths: ['[']\n", "blocked_paths", 2, "not a valid glob"},
		{"not a mapping", "- a\n- b\n", "", 1, "must be a mapping"},
		{"broken YAML", "version: 1\nlabel: [\n", "", 2, "not valid YAML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseRepo([]byte(tc.yaml))
			var re *RepoError
			require.True(t, errors.As(err, &re), "%v", err)
			assert.Equal(t, tc.key, re.Key)
			assert.Equal(t, tc.line, re.Line)
			assert.Contains(t, re.Msg, tc.msg)
			assert.Contains(t, err.Error(), RepoPath)
		})
	}
}

func TestRepoCI(t *testing.T) {
	t.Parallel()
	assert.Equal(t, CI{FixRounds: 3}, DefaultRepo().CI)
	c, err := ParseRepo([]byte("version: 1\nci:\n  fix_rounds: 0\n  ready_when_green: true\n"))
	require.NoError(t, err)
	assert.Equal(t, CI{FixRounds: 0, ReadyWhenGreen: true}, c.CI, "0 turns the loop off and is kept, not replaced by the default")
	c, err = ParseRepo([]byte("version: 1\nci:\n  ready_when_green: true\n"))
	require.NoError(t, err)
	assert.Equal(t, 3, c.CI.FixRounds, "a key left out keeps its default")
}
