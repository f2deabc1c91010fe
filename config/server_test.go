package config

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fakePEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIsecretsecret\n-----END RSA PRIVATE KEY-----\n"

func minimal() []string {
	return []string{
		"ISSUESMITH_APP_ID=1234",
		"ISSUESMITH_PRIVATE_KEY=" + fakePEM,
		"ISSUESMITH_WEBHOOK_SECRET=hush-hush",
		"ISSUESMITH_MODEL_NAME=qwen3-coder",
		"ISSUESMITH_MODEL_API_KEY=sk-supersecret",
		"HOME=/root", // unrelated variables are ignored
	}
}

func TestServerDefaults(t *testing.T) {
	t.Parallel()
	s, err := ParseServer(minimal())
	require.NoError(t, err)
	assert.Equal(t, int64(1234), s.AppID)
	assert.Equal(t, "https://api.github.com/", s.GitHubURL)
	assert.Equal(t, "/root/.local/state/issuesmith/issuesmith.db", s.DatabaseURL, "the embedded SQLite default, in the state directory")
	assert.Equal(t, "/root/.local/state/issuesmith/data", s.DataDir)
	assert.Equal(t, ":8080", s.ListenAddr)
	assert.Equal(t, int64(25<<20), s.WebhookMaxBody)
	assert.Equal(t, 30*time.Second, s.ShutdownTimeout)
	assert.Equal(t, "https://api.openai.com/v1", s.Model.BaseURL)
	assert.Equal(t, slog.LevelInfo, s.SlogLevel())
	key, err := s.Key()
	require.NoError(t, err)
	assert.Equal(t, fakePEM, string(key))
}

func TestServerFromFileAndEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "app.pem")
	require.NoError(t, os.WriteFile(keyFile, []byte(fakePEM), 0o600))
	apiKeyFile := filepath.Join(dir, "model.key")
	require.NoError(t, os.WriteFile(apiKeyFile, []byte("sk-from-file\n"), 0o600))
	conf := filepath.Join(dir, "issuesmith.env")
	require.NoError(t, os.WriteFile(conf, []byte(`# settings
ISSUESMITH_APP_ID=77
ISSUESMITH_PRIVATE_KEY_FILE=`+keyFile+`
ISSUESMITH_WEBHOOK_SECRET="from-file"
ISSUESMITH_LISTEN_ADDR=127.0.0.1:9000
ISSUESMITH_MODEL_NAME=small
ISSUESMITH_MODEL_API_KEY_FILE=`+apiKeyFile+`
ISSUESMITH_MODEL_ROLES=coder:big,planner:medium
`), 0o600))
	s, err := ParseServer([]string{FileVar + "=" + conf, "ISSUESMITH_LISTEN_ADDR=:7000", "ISSUESMITH_DATABASE_URL=postgres://u:pw@db/issuesmith", "HOME=/root"})
	require.NoError(t, err)
	assert.Equal(t, int64(77), s.AppID)
	assert.Equal(t, "from-file", s.WebhookSecret)
	assert.Equal(t, ":7000", s.ListenAddr, "the environment wins over the file")
	assert.Equal(t, map[string]string{"coder": "big", "planner": "medium"}, s.Model.Roles)
	key, err := s.Key()
	require.NoError(t, err)
	assert.Equal(t, fakePEM, string(key))
	apiKey, err := s.ModelAPIKey()
	require.NoError(t, err)
	assert.Equal(t, "sk-from-file", apiKey)
	assert.NotContains(t, s.String(), "pw@", "database password redacted")
}

func TestEscapedNewlinesInKey(t *testing.T) {
	t.Parallel()
	env := minimal()
	env[1] = "ISSUESMITH_PRIVATE_KEY=" + strings.ReplaceAll(fakePEM, "\n", `\n`)
	s, err := ParseServer(env)
	require.NoError(t, err)
	assert.Equal(t, fakePEM, s.PrivateKey)
}

func TestServerValidationNamesVariables(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  []string
		want []string
	}{
		{"nothing set", nil, []string{"ISSUESMITH_APP_ID", "ISSUESMITH_PRIVATE_KEY_FILE: required (or ISSUESMITH_PRIVATE_KEY)", "ISSUESMITH_WEBHOOK_SECRET", "ISSUESMITH_MODEL_NAME"}},
		{"both keys", append(minimal(), "ISSUESMITH_PRIVATE_KEY_FILE=/k.pem"), []string{"either ISSUESMITH_PRIVATE_KEY or ISSUESMITH_PRIVATE_KEY_FILE, not both"}},
		{"key not PEM", append(minimal(), "ISSUESMITH_PRIVATE_KEY=hunter2"), []string{"ISSUESMITH_PRIVATE_KEY: is not a PEM"}},
		{"bad url", append(minimal(), "ISSUESMITH_GITHUB_URL=api.github.com"), []string{"ISSUESMITH_GITHUB_URL"}},
		{"bad listen", append(minimal(), "ISSUESMITH_LISTEN_ADDR=8080"), []string{"ISSUESMITH_LISTEN_ADDR"}},
		{"bad level", append(minimal(), "ISSUESMITH_LOG_LEVEL=loud"), []string{"ISSUESMITH_LOG_LEVEL"}},
		{"bad refresh schedule", append(minimal(), "ISSUESMITH_SUMMARY_REFRESH=nightly"), []string{"ISSUESMITH_SUMMARY_REFRESH"}},
		{"bot login without [bot]", append(minimal(), "ISSUESMITH_BOT_LOGIN=issuesmith"), []string{"ISSUESMITH_BOT_LOGIN"}},
		{"unknown role", append(minimal(), "ISSUESMITH_MODEL_ROLES=reviewer:x"), []string{"unknown role \"reviewer\""}},
		{"not a number", append(minimal(), "ISSUESMITH_APP_ID=abc"), []string{"APP_ID"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseServer(tc.env)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.NotContains(t, err.Error(), "hunter2", "values are never echoed")
		})
	}
	_, err := ParseServer([]string{FileVar + "=/nonexistent/issuesmith.env"})
	assert.ErrorContains(t, err, "read ISSUESMITH_CONFIG_FILE")
}

func TestSecretsNeverLogged(t *testing.T) {
	t.Parallel()
	s, err := ParseServer(minimal())
	require.NoError(t, err)
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("config", "server", s)
	out := buf.String() + s.String()
	for _, secret := range []string{"MIIsecret", "hush-hush", "sk-supersecret"} {
		assert.NotContains(t, out, secret)
	}
	assert.Contains(t, out, "qwen3-coder")
	assert.Contains(t, out, "[set]")
	assert.Contains(t, out, `"model_protocol":"tools"`)

	s, err = ParseServer(append(minimal(), "ISSUESMITH_MODEL_BASE_URL=https://bot:sk-inurl@llm.example/v1"))
	require.NoError(t, err)
	buf.Reset()
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("config", "server", s)
	assert.NotContains(t, buf.String()+s.String(), "sk-inurl", "a key in the model URL is redacted")
	assert.Contains(t, s.String(), "llm.example")
}

func TestLLMConfig(t *testing.T) {
	t.Parallel()
	env := append(minimal(), "ISSUESMITH_MODEL_ROLES=coder:big", "ISSUESMITH_MODEL_INPUT_PRICE=0.5",
		"ISSUESMITH_MODEL_OUTPUT_PRICE=2", "ISSUESMITH_MODEL_MAX_RETRIES=2")
	s, err := ParseServer(env)
	require.NoError(t, err)
	c, err := s.LLM()
	require.NoError(t, err)
	assert.Equal(t, "qwen3-coder", c.Model)
	assert.Equal(t, "sk-supersecret", c.APIKey)
	assert.Equal(t, "big", c.Roles[llm.RoleCoder].Model)
	assert.Equal(t, 3, c.Retry.MaxAttempts)
	assert.Equal(t, llm.Price{Prompt: 0.5, Completion: 2}, c.Prices["big"])
	assert.Equal(t, llm.Price{Prompt: 0.5, Completion: 2}, c.Prices["qwen3-coder"])

	r, err := ParseRepo([]byte("version: 1\nroles:\n  planner:\n    model: thinker\n"))
	require.NoError(t, err)
	over := c.Override(r.LLMRoles())
	assert.Equal(t, "thinker", over.Roles[llm.RolePlanner].Model)
	assert.Equal(t, "big", over.Roles[llm.RoleCoder].Model)
}

// Check commands are the server's decision first: off unless allowed.
func TestAllowCheckCommands(t *testing.T) {
	t.Parallel()
	s, err := ParseServer(minimal())
	require.NoError(t, err)
	require.False(t, s.AllowCheckCommands)
	s, err = ParseServer(append(minimal(), "ISSUESMITH_ALLOW_CHECK_COMMANDS=true"))
	require.NoError(t, err)
	require.True(t, s.AllowCheckCommands)
}

// The database and data directory never default to the working directory:
// ISSUESMITH_STATE_DIR, then systemd's STATE_DIRECTORY, then XDG_STATE_HOME,
// then HOME; explicit settings (relative ones too) are kept as given.
func TestStateDirectoryDefaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env      []string
		db, data string
	}{
		{[]string{"ISSUESMITH_STATE_DIR=/srv/is", "STATE_DIRECTORY=/var/lib/x"}, "/srv/is/issuesmith.db", "/srv/is/data"},
		{[]string{"STATE_DIRECTORY=/var/lib/issuesmith:/var/lib/other", "XDG_STATE_HOME=/x"}, "/var/lib/issuesmith/issuesmith.db", "/var/lib/issuesmith/data"},
		{[]string{"XDG_STATE_HOME=/home/u/st"}, "/home/u/st/issuesmith/issuesmith.db", "/home/u/st/issuesmith/data"},
		{[]string{"ISSUESMITH_DATABASE_URL=issuesmith.db", "ISSUESMITH_DATA_DIR=issuesmith-data"}, "issuesmith.db", "issuesmith-data"},
	} {
		env := append(minimal()[:5:5], tc.env...)
		s, err := ParseServer(env)
		require.NoError(t, err, tc.env)
		assert.Equal(t, tc.db, s.DatabaseURL, tc.env)
		assert.Equal(t, tc.data, s.DataDir, tc.env)
	}
	_, err := ParseServer(minimal()[:5:5])
	require.ErrorContains(t, err, "ISSUESMITH_DATABASE_URL: not set, and no state directory")
}
