package ghapp

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
)

func TestParseManifestRepositoryAppYML(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../app.yml")
	require.NoError(t, err)
	m, err := ParseManifest(data)
	require.NoError(t, err)
	require.Equal(t, "issuesmith", m.Name)
	// The least the bot needs (issue 7).
	require.Equal(t, map[string]string{"contents": "write", "issues": "write", "pull_requests": "write",
		"metadata": "read", "checks": "read", "actions": "read"}, m.DefaultPermissions)
	require.Subset(t, m.DefaultEvents, []string{"issues", "issue_comment", "pull_request_review_comment", "push"})

	raw, err := m.JSON()
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(raw, &got))
	require.Equal(t, map[string]any{"url": "https://issuesmith.example.com/webhook", "active": true}, got["hook_attributes"])
	require.Equal(t, false, got["public"])
	require.NotContains(t, got, "redirect_url", "the flow sets it")
}

func TestParseManifestRefuses(t *testing.T) {
	t.Parallel()
	base := "name: bot\nurl: https://example.org\nhook_attributes:\n  url: https://example.org/webhook\n" +
		"default_permissions:\n  issues: write\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", base + "default_permission:\n  issues: write\n", "line 7: field default_permission not found"},
		{"no name", "url: https://example.org\nhook_attributes:\n  url: https://example.org/webhook\ndefault_permissions:\n  issues: write\n", "name: required"},
		{"relative webhook", "name: bot\nurl: https://example.org\nhook_attributes:\n  url: /webhook\ndefault_permissions:\n  issues: write\n", "hook_attributes.url: must be an absolute"},
		{"bad level", base + "  checks: full\n", `default_permissions.checks: "full" is not read, write or admin`},
		{"bad event", base + "default_events: [Issue Comment]\n", `default_events[0]: "Issue Comment" is not an event name`},
		{"wrong type", base + "public: maybe\n", "cannot unmarshal"},
		{"long name", "name: a-name-longer-than-github-allows-for-apps\n" + base[len("name: bot\n"):], "at most 34 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseManifest([]byte(tt.yaml))
			require.ErrorContains(t, err, tt.want)
		})
	}
}

func TestCompleteManifestRefusals(t *testing.T) {
	t.Parallel()
	const op = "POST /app-manifests/{code}/conversions"
	tests := []struct {
		name   string
		fault  *ghtest.Fault
		status int
		want   string
	}{
		{"unknown code", nil, http.StatusNotFound, "already used or older than an hour"},
		{"validation failed", &ghtest.Fault{Op: op, Status: http.StatusUnprocessableEntity,
			Body: `{"message":"Validation Failed","documentation_url":"https://docs.github.com"}`}, http.StatusUnprocessableEntity, "Validation Failed"},
		{"server error", &ghtest.Fault{Op: op, Status: http.StatusBadGateway, Body: "bad gateway"}, http.StatusBadGateway, "may or may not have been created"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh := ghtest.New(t, ghtest.Options{})
			if tt.fault != nil {
				gh.Inject(*tt.fault)
			}
			const code = "c0de5ecret"
			creds, err := CompleteManifest(t.Context(), nil, gh.URL(), code)
			require.Nil(t, creds)
			var me *ManifestError
			require.True(t, errors.As(err, &me), "got %v", err)
			require.Equal(t, tt.status, me.Status)
			require.ErrorContains(t, err, tt.want)
			require.NotContains(t, err.Error(), code, "the one-time code stays out of errors")
			require.Equal(t, 1, gh.Calls(op))
		})
	}
}

func TestCompleteManifestUnreachable(t *testing.T) {
	t.Parallel()
	const code = "c0de5ecret"
	_, err := CompleteManifest(t.Context(), nil, "http://127.0.0.1:1/", code)
	require.ErrorContains(t, err, "reach the github api")
	require.NotContains(t, err.Error(), code)
	_, err = CompleteManifest(t.Context(), nil, "http://127.0.0.1:1/", "../app")
	require.ErrorContains(t, err, "malformed")
}

func TestManifestHelpers(t *testing.T) {
	t.Parallel()
	m := &Manifest{HookAttributes: HookAttributes{URL: "https://issuesmith.EXAMPLE.com/webhook"},
		DefaultPermissions: map[string]string{"issues": "write", "checks": "read"}}
	if !m.ExampleWebhook() {
		t.Error("an example.com webhook is not reported")
	}
	m.HookAttributes.URL = "https://bot.acme.dev/webhook"
	if m.ExampleWebhook() {
		t.Error("a real host is reported as an example")
	}
	if got := m.PermissionList(); got != "checks:read, issues:write" {
		t.Errorf("PermissionList = %q", got)
	}
	for web, want := range map[string]string{
		"https://github.com": "https://api.github.com/", "https://GitHub.com/": "https://api.github.com/",
		"https://ghe.acme.dev/": "https://ghe.acme.dev/api/v3/",
	} {
		if got, err := APIURLFor(web); err != nil || got != want {
			t.Errorf("APIURLFor(%q) = %q, %v; want %q", web, got, err, want)
		}
	}
	if _, err := APIURLFor("ghe.acme.dev"); err == nil {
		t.Error("a URL without scheme is accepted")
	}
}
