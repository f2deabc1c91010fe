package config

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// ignoreFuncs leaves SettingName out of Config comparisons (tested apart).
var ignoreFuncs = cmpopts.IgnoreFields(llm.Config{}, "SettingName")

func TestModelSettingsBecomeLLMConfig(t *testing.T) {
	t.Parallel()
	base := llm.Config{BaseURL: "https://api.openai.com/v1", APIKey: "sk-supersecret", Model: "qwen3-coder",
		Timeout: 5 * time.Minute, Protocol: llm.ProtocolTools, Retry: llm.RetryConfig{MaxAttempts: 4, MaxRetryAfter: 2 * time.Minute}}
	with := func(f func(*llm.Config)) llm.Config {
		c := base
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name string
		env  []string
		want llm.Config
	}{
		{"defaults", nil, base},
		{"default protocol text", []string{"ISSUESMITH_MODEL_PROTOCOL=text"},
			with(func(c *llm.Config) { c.Protocol = llm.ProtocolText })},
		{"protocol per model, names with colons", []string{"ISSUESMITH_MODEL_PROTOCOLS=qwen3:8b=text,gpt-4.1=tools"},
			with(func(c *llm.Config) {
				c.Protocols = map[string]llm.Protocol{"qwen3:8b": llm.ProtocolText, "gpt-4.1": llm.ProtocolTools}
			})},
		{"per-role settings merge into one role entry", []string{"ISSUESMITH_MODEL_ROLES=coder:qwen3:32b",
			"ISSUESMITH_MODEL_ROLE_PROTOCOLS=observer:text,coder:tools", "ISSUESMITH_MODEL_ROLE_TEMPERATURES=coder:0.2",
			"ISSUESMITH_MODEL_ROLE_MAX_COMPLETION_TOKENS=coder:16000"},
			with(func(c *llm.Config) {
				c.Roles = map[llm.Role]llm.RoleConfig{
					llm.RoleCoder:    {Model: "qwen3:32b", Protocol: llm.ProtocolTools, Temperature: 0.2, MaxTokens: 16000},
					llm.RoleObserver: {Protocol: llm.ProtocolText},
				}
			})},
		{"temperature, completion cap, streaming, retries", []string{"ISSUESMITH_MODEL_TEMPERATURE=0.7",
			"ISSUESMITH_MODEL_MAX_COMPLETION_TOKENS=8192", "ISSUESMITH_MODEL_NO_STREAM=true", "ISSUESMITH_MODEL_NO_STREAM_USAGE=1",
			"ISSUESMITH_MODEL_MAX_RETRIES=0", "ISSUESMITH_MODEL_MAX_RETRY_AFTER=30s", "ISSUESMITH_MODEL_TIMEOUT=90s"},
			with(func(c *llm.Config) {
				c.Temperature, c.MaxTokens, c.NoStream, c.NoStreamUsage = 0.7, 8192, true, true
				c.Retry, c.Timeout = llm.RetryConfig{MaxAttempts: 1, MaxRetryAfter: 30 * time.Second}, 90*time.Second
			})},
		{"cache marks for all roles", []string{"ISSUESMITH_MODEL_CACHE_MARKS=all"},
			with(func(c *llm.Config) { c.CacheMarks = true })},
		{"cache marks per role", []string{"ISSUESMITH_MODEL_CACHE_MARKS=explorer,coder"},
			with(func(c *llm.Config) {
				c.Roles = map[llm.Role]llm.RoleConfig{llm.RoleExplorer: {CacheMarks: true}, llm.RoleCoder: {CacheMarks: true}}
			})},
		{"default prices cover every model named", []string{"ISSUESMITH_MODEL_ROLES=planner:big",
			"ISSUESMITH_MODEL_INPUT_PRICE=0.5", "ISSUESMITH_MODEL_OUTPUT_PRICE=2", "ISSUESMITH_MODEL_CACHED_PRICE=0.05"},
			with(func(c *llm.Config) {
				c.Roles = map[llm.Role]llm.RoleConfig{llm.RolePlanner: {Model: "big"}}
				p := llm.Price{Prompt: 0.5, Completion: 2, Cached: 0.05}
				c.Prices = map[string]llm.Price{"qwen3-coder": p, "big": p}
			})},
		{"per-model prices win, and add models", []string{"ISSUESMITH_MODEL_ROLES=coder:big",
			"ISSUESMITH_MODEL_INPUT_PRICE=0.5", "ISSUESMITH_MODEL_OUTPUT_PRICE=2",
			"ISSUESMITH_MODEL_PRICES=big=3/15/0.3,spare:7b=0.1/0.2"},
			with(func(c *llm.Config) {
				c.Roles = map[llm.Role]llm.RoleConfig{llm.RoleCoder: {Model: "big"}}
				c.Prices = map[string]llm.Price{"qwen3-coder": {Prompt: 0.5, Completion: 2},
					"big": {Prompt: 3, Completion: 15, Cached: 0.3}, "spare:7b": {Prompt: 0.1, Completion: 0.2}}
			})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := ParseServer(append(minimal(), tc.env...))
			require.NoError(t, err)
			got, err := s.LLM()
			require.NoError(t, err)
			require.NotNil(t, got.SettingName)
			if d := cmp.Diff(tc.want, got, ignoreFuncs); d != "" {
				t.Errorf("llm config (-want +got):\n%s", d)
			}
		})
	}
}

func TestModelValidationNamesVariables(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  string
		want string
	}{
		{"protocol", "ISSUESMITH_MODEL_PROTOCOL=json", `ISSUESMITH_MODEL_PROTOCOL: want "tools" or "text", got "json"`},
		{"protocol per model", "ISSUESMITH_MODEL_PROTOCOLS=llama3=xml", `ISSUESMITH_MODEL_PROTOCOLS: model "llama3": want`},
		{"protocol per model without =", "ISSUESMITH_MODEL_PROTOCOLS=llama3:text", "ISSUESMITH_MODEL_PROTOCOLS: want a comma-separated list of KEY=VALUE pairs"},
		{"protocol per role", "ISSUESMITH_MODEL_ROLE_PROTOCOLS=coder:xml", "ISSUESMITH_MODEL_ROLE_PROTOCOLS: role coder: want"},
		{"protocol for an unknown role", "ISSUESMITH_MODEL_ROLE_PROTOCOLS=reviewer:text", `ISSUESMITH_MODEL_ROLE_PROTOCOLS: unknown role "reviewer"`},
		{"cache marks for an unknown role", "ISSUESMITH_MODEL_CACHE_MARKS=coder,reviewer", `ISSUESMITH_MODEL_CACHE_MARKS: unknown role "reviewer"`},
		{"temperature range", "ISSUESMITH_MODEL_TEMPERATURE=3", "ISSUESMITH_MODEL_TEMPERATURE: must be between 0 and 2"},
		{"temperature not a number", "ISSUESMITH_MODEL_TEMPERATURE=warm", "ISSUESMITH_MODEL_TEMPERATURE: want a number"},
		{"role temperature", "ISSUESMITH_MODEL_ROLE_TEMPERATURES=planner:-1", "ISSUESMITH_MODEL_ROLE_TEMPERATURES: role planner: must be between 0 and 2"},
		{"role temperature not a number", "ISSUESMITH_MODEL_ROLE_TEMPERATURES=planner:hot", "ISSUESMITH_MODEL_ROLE_TEMPERATURES: want a comma-separated list of KEY:VALUE pairs, each VALUE a number"},
		{"completion cap", "ISSUESMITH_MODEL_MAX_COMPLETION_TOKENS=-1", "ISSUESMITH_MODEL_MAX_COMPLETION_TOKENS: must not be negative"},
		{"role completion cap", "ISSUESMITH_MODEL_ROLE_MAX_COMPLETION_TOKENS=coder:-5", "ISSUESMITH_MODEL_ROLE_MAX_COMPLETION_TOKENS: role coder"},
		{"no-stream", "ISSUESMITH_MODEL_NO_STREAM=sometimes", "ISSUESMITH_MODEL_NO_STREAM: want true or false"},
		{"cached price", "ISSUESMITH_MODEL_CACHED_PRICE=-0.1", "ISSUESMITH_MODEL_CACHED_PRICE: must not be negative"},
		{"price list", "ISSUESMITH_MODEL_PRICES=big=3", `ISSUESMITH_MODEL_PRICES: model "big": want "IN/OUT" or "IN/OUT/CACHED"`},
		{"negative price in list", "ISSUESMITH_MODEL_PRICES=big=3/-1", `ISSUESMITH_MODEL_PRICES: model "big": want`},
		{"retry-after", "ISSUESMITH_MODEL_MAX_RETRY_AFTER=0s", "ISSUESMITH_MODEL_MAX_RETRY_AFTER: must be positive"},
		{"timeout not a duration", "ISSUESMITH_MODEL_TIMEOUT=5", `ISSUESMITH_MODEL_TIMEOUT: want a duration like "90s" or "5m"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseServer(append(minimal(), tc.env))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			_, err = ParseModel([]string{tc.env})
			require.Error(t, err, "local commands check the same way")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestLLMErrorsNameTheVariable runs the real client against loopback
// servers and checks that its errors name what the operator sets.
func TestLLMErrorsNameTheVariable(t *testing.T) {
	t.Parallel()
	status := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			fmt.Fprintf(w, `{"error":{"message":"status %d","type":"invalid_request_error"}}`, code)
		}))
		t.Cleanup(srv.Close)
		return srv.URL + "/v1"
	}
	keyFile := filepath.Join(t.TempDir(), "model.key")
	require.NoError(t, os.WriteFile(keyFile, []byte("sk-in-a-file\n"), 0o600))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + l.Addr().String() + "/v1"
	require.NoError(t, l.Close())

	for _, tc := range []struct {
		name string
		env  []string
		repo string
		role llm.Role
		want string
	}{
		{"unreachable endpoint", []string{"ISSUESMITH_MODEL_BASE_URL=" + closed}, "", llm.RoleCoder,
			"check ISSUESMITH_MODEL_BASE_URL"},
		{"key refused", []string{"ISSUESMITH_MODEL_BASE_URL=" + status(401), "ISSUESMITH_MODEL_API_KEY=sk-bad"}, "", llm.RoleCoder,
			"check ISSUESMITH_MODEL_API_KEY)"},
		{"key from a file refused", []string{"ISSUESMITH_MODEL_BASE_URL=" + status(403), "ISSUESMITH_MODEL_API_KEY_FILE=" + keyFile}, "", llm.RoleCoder,
			"check ISSUESMITH_MODEL_API_KEY_FILE"},
		{"default model unknown", []string{"ISSUESMITH_MODEL_BASE_URL=" + status(404)}, "", llm.RoleCoder,
			"check ISSUESMITH_MODEL_NAME and ISSUESMITH_MODEL_BASE_URL"},
		{"role model unknown", []string{"ISSUESMITH_MODEL_BASE_URL=" + status(404), "ISSUESMITH_MODEL_ROLES=planner:nope"}, "", llm.RolePlanner,
			`model "nope" (check ISSUESMITH_MODEL_ROLES and`},
		{"repository's model unknown", []string{"ISSUESMITH_MODEL_BASE_URL=" + status(404), "ISSUESMITH_MODEL_ROLES=planner:nope"},
			"version: 1\nroles:\n  planner:\n    model: repo-model\n", llm.RolePlanner,
			`model "repo-model" (check .github/issuesmith.yml roles.planner.model and ISSUESMITH_MODEL_BASE_URL)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := append([]string{"ISSUESMITH_MODEL_NAME=qwen3-coder", "ISSUESMITH_MODEL_MAX_RETRIES=0"}, tc.env...)
			m, err := ParseModel(env)
			require.NoError(t, err)
			r, err := ParseRepo([]byte(tc.repo))
			require.NoError(t, err)
			c, err := m.LLMFor(r)
			require.NoError(t, err)
			client, err := llm.NewClient(c)
			require.NoError(t, err)
			_, err = client.Chat(t.Context(), llm.Request{Role: tc.role, Messages: []llm.Message{{Role: "user", Content: "hi"}}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "llm.", "no llm package key leaks to the operator")
			assert.NotContains(t, err.Error(), "sk-", "the key never appears")
		})
	}
}

func TestLLMValidationNamesTheVariable(t *testing.T) {
	t.Parallel()
	m, err := ParseModel([]string{"ISSUESMITH_MODEL_ROLES=coder:big"})
	require.NoError(t, err)
	_, err = m.LLM()
	require.ErrorIs(t, err, llm.ErrConfig)
	assert.Contains(t, err.Error(), "set ISSUESMITH_MODEL_NAME or ISSUESMITH_MODEL_ROLES")
	assert.NotContains(t, err.Error(), "llm.")

	names := Model{}.settingName
	for key, want := range map[string]string{
		"base_url": "ISSUESMITH_MODEL_BASE_URL", "model": "ISSUESMITH_MODEL_NAME", "timeout": "ISSUESMITH_MODEL_TIMEOUT",
		"retry.max_retry_after": "ISSUESMITH_MODEL_MAX_RETRY_AFTER", "retry": "ISSUESMITH_MODEL_MAX_RETRIES",
		"max_tokens": "ISSUESMITH_MODEL_MAX_COMPLETION_TOKENS", "temperature": "ISSUESMITH_MODEL_TEMPERATURE",
		"protocols.llama3": "ISSUESMITH_MODEL_PROTOCOLS", "roles.coder.protocol": "ISSUESMITH_MODEL_ROLE_PROTOCOLS",
		"roles.coder.max_tokens": "ISSUESMITH_MODEL_ROLE_MAX_COMPLETION_TOKENS", "roles.coder.model": "ISSUESMITH_MODEL_ROLES",
		"roles.coder.temperature": "ISSUESMITH_MODEL_ROLE_TEMPERATURES", "something.new": "",
	} {
		assert.Equal(t, want, names(key), key)
	}
}

// TestRepoRolesReachTheModel sends one call per role through the real
// client and checks what the server received: the repository's per-role
// model, temperature, completion cap and protocol override the server's.
func TestRepoRolesReachTheModel(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("coder answer").WithUsage(1_000_000, 1_000_000, 500_000).When(llmtest.Expect{Role: "coder"}),
		llmtest.Reply("planner answer").WithUsage(1_000_000, 0, 0).When(llmtest.Expect{Role: "planner"}),
	})
	m, err := ParseModel([]string{"ISSUESMITH_MODEL_BASE_URL=" + srv.URL(), "ISSUESMITH_MODEL_NAME=server-model",
		"ISSUESMITH_MODEL_TEMPERATURE=0.9", "ISSUESMITH_MODEL_MAX_COMPLETION_TOKENS=1000", "ISSUESMITH_MODEL_NO_STREAM=true",
		"ISSUESMITH_MODEL_ROLE_PROTOCOLS=coder:text", "ISSUESMITH_MODEL_INPUT_PRICE=1", "ISSUESMITH_MODEL_OUTPUT_PRICE=4",
		"ISSUESMITH_MODEL_CACHED_PRICE=0.5", "ISSUESMITH_MODEL_PRICES=repo-coder=2/8"})
	require.NoError(t, err)
	r, err := ParseRepo([]byte(`version: 1
roles:
  coder:
    model: repo-coder
    temperature: 0.1
    max_completion_tokens: 4000
    protocol: tools
  planner:
    model: repo-planner
`))
	require.NoError(t, err)
	c, err := m.LLMFor(r)
	require.NoError(t, err)
	client, err := llm.NewClient(c)
	require.NoError(t, err)
	assert.Equal(t, llm.ProtocolTools, client.Protocol(llm.RoleCoder), "the repository's protocol wins over ROLE_PROTOCOLS")
	assert.Equal(t, llm.ProtocolTools, client.Protocol(llm.RolePlanner))

	msgs := []llm.Message{{Role: "user", Content: "hi"}}
	coder, err := client.Chat(t.Context(), llm.Request{Role: llm.RoleCoder, Messages: msgs})
	require.NoError(t, err)
	planner, err := client.Chat(t.Context(), llm.Request{Role: llm.RolePlanner, Messages: msgs})
	require.NoError(t, err)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "repo-coder", reqs[0].Model)
	assert.InDelta(t, 0.1, reqs[0].Temperature, 1e-6)
	assert.Equal(t, 4000, reqs[0].MaxTokens)
	assert.False(t, reqs[0].Stream, "ISSUESMITH_MODEL_NO_STREAM")
	assert.Equal(t, "repo-planner", reqs[1].Model)
	assert.InDelta(t, 0.9, reqs[1].Temperature, 1e-6, "server temperature where the repository sets none")
	assert.Equal(t, 1000, reqs[1].MaxTokens)

	// repo-coder has its own PRICES entry (no cached price: cached tokens
	// cost the prompt price); repo-planner falls back to the defaults.
	assert.InDelta(t, 2+8, coder.Cost, 1e-9)
	assert.InDelta(t, 1, planner.Cost, 1e-9)
	assert.Equal(t, llm.Price{Prompt: 1, Completion: 4, Cached: 0.5}, c.Prices["repo-planner"])
	assert.Equal(t, "repo-coder", client.ModelName(llm.RoleCoder))
}

func TestRepoLLMRolesCarryEveryPerRoleField(t *testing.T) {
	t.Parallel()
	r, err := ParseRepo([]byte(`version: 1
roles:
  explorer:
    temperature: 0.3
  observer:
    protocol: text
  coder:
    max_completion_tokens: 9000
  planner:
    max_steps: 2
`))
	require.NoError(t, err)
	want := map[llm.Role]llm.RoleConfig{
		llm.RoleExplorer: {Temperature: 0.3},
		llm.RoleObserver: {Protocol: llm.ProtocolText},
		llm.RoleCoder:    {MaxTokens: 9000},
	}
	if d := cmp.Diff(want, r.LLMRoles()); d != "" {
		t.Errorf("LLMRoles (-want +got):\n%s", d)
	}
	assert.Empty(t, DefaultRepo().LLMRoles(), "the defaults override nothing")
}

func TestParseLocal(t *testing.T) {
	t.Parallel()
	conf := filepath.Join(t.TempDir(), "issuesmith.env")
	require.NoError(t, os.WriteFile(conf, []byte("ISSUESMITH_MODEL_NAME=from-file\nISSUESMITH_MODEL_PROTOCOL=text\n"+
		"ISSUESMITH_DATABASE_URL=/var/lib/issuesmith.db\n"), 0o600))
	for _, tc := range []struct {
		name       string
		env        []string
		configured bool
		model, db  string
		protocol   llm.Protocol
	}{
		{"nothing set: no model, database in the state directory", []string{"HOME=/home/u"}, false, "", "/home/u/.local/state/issuesmith/issuesmith.db", llm.ProtocolTools},
		{"no App settings needed", []string{"ISSUESMITH_MODEL_NAME=m", "ISSUESMITH_STATE_DIR=/srv/is"}, true, "m", "/srv/is/issuesmith.db", llm.ProtocolTools},
		{"roles alone name a model", []string{"ISSUESMITH_MODEL_ROLES=summarizer:s", "STATE_DIRECTORY=/var/lib/issuesmith"}, true, "", "/var/lib/issuesmith/issuesmith.db", llm.ProtocolTools},
		{"from the config file", []string{FileVar + "=" + conf}, true, "from-file", "/var/lib/issuesmith.db", llm.ProtocolText},
		{"environment wins over the file", []string{FileVar + "=" + conf, "ISSUESMITH_MODEL_NAME=env"}, true, "env", "/var/lib/issuesmith.db", llm.ProtocolText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, err := ParseLocal(tc.env)
			require.NoError(t, err)
			assert.Equal(t, tc.configured, l.Model.Configured())
			assert.Equal(t, tc.model, l.Model.Name)
			assert.Equal(t, tc.db, l.DatabaseURL)
			assert.Equal(t, tc.protocol, l.Model.Protocol)
		})
	}
	_, err := ParseLocal([]string{FileVar + "=" + filepath.Join(t.TempDir(), "missing.env")})
	assert.ErrorContains(t, err, "read ISSUESMITH_CONFIG_FILE")
	_, err = ParseModel([]string{"ISSUESMITH_MODEL_BASE_URL=localhost:11434"})
	assert.ErrorContains(t, err, "ISSUESMITH_MODEL_BASE_URL: must be an absolute http(s) URL")
	assert.False(t, strings.Contains(fmt.Sprint(err), "ISSUESMITH_MODEL_NAME"), "a local command may run without a model")
}
