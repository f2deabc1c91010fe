package procenv_test

import (
	"testing"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/internal/procenv"
	"github.com/stretchr/testify/assert"
)

func TestFilterDropsBotSettings(t *testing.T) {
	t.Parallel()
	got := procenv.Filter([]string{"PATH=/bin", "ISSUESMITH_WEBHOOK_SECRET=s", "HOME=/h",
		"ISSUESMITH_PRIVATE_KEY=k", "MY_ISSUESMITH_X=kept", "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Basic a2V5",
		"OTEL_EXPORTER_OTLP_ENDPOINT=http://tempo:4318"})
	assert.Equal(t, []string{"PATH=/bin", "HOME=/h", "MY_ISSUESMITH_X=kept"}, got)
}

func TestScrubbedDropsSecretFromProcess(t *testing.T) {
	t.Setenv("ISSUESMITH_TEST_SECRET", "hunter2")
	t.Setenv("PROCENV_KEPT", "yes")
	env := procenv.Scrubbed()
	_, ok := procenv.Lookup(env, "ISSUESMITH_TEST_SECRET")
	assert.False(t, ok)
	v, ok := procenv.Lookup(env, "PROCENV_KEPT")
	assert.True(t, ok)
	assert.Equal(t, "yes", v)
}

// The prefix must stay the one config reads the settings under.
func TestPrefixIsConfigs(t *testing.T) {
	t.Parallel()
	assert.Equal(t, config.EnvPrefix, procenv.Prefix)
}

// TestSandboxAllowList: only the allow-list passes; secrets whatever
// their name, and everything unknown, are dropped.
func TestSandboxAllowList(t *testing.T) {
	t.Parallel()
	got := procenv.Sandbox([]string{"PATH=/usr/bin", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm", "CGO_ENABLED=1",
		"GOARCH=amd64", "CC=gcc", "GITHUB_TOKEN=ghs_x", "GH_TOKEN=gho_x", "AWS_SECRET_ACCESS_KEY=a", "AWS_ACCESS_KEY_ID=b",
		"GOOGLE_APPLICATION_CREDENTIALS=/k.json", "AZURE_CLIENT_SECRET=c", "OPENAI_API_KEY=sk", "ANTHROPIC_API_KEY=sk-ant",
		"DATABASE_URL=postgres://u:p@h/db", "ISSUESMITH_PRIVATE_KEY=k", "OTEL_EXPORTER_OTLP_HEADERS=h", "CGO_SECRET=x",
		"HTTPS_PROXY=http://corp:3128", "SSH_AUTH_SOCK=/run/ssh", "HOME=/root", "GOFLAGS=-mod=mod", "NOEQUALS"})
	assert.Equal(t, []string{"PATH=/usr/bin", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm", "CGO_ENABLED=1",
		"GOARCH=amd64", "CC=gcc"}, got)
}
