package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
	"gopkg.in/yaml.v3"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/ghapp/ghtest"
)

const (
	convertOp   = "POST /app-manifests/{code}/conversions"
	testWebhook = "https://bot.test.invalid/webhook"
)

// setupRun is `bot setup` running against a fake GitHub (API and web page).
type setupRun struct {
	gh   *ghtest.Server
	out  *outBuffer
	dir  string
	base string // the local page, http://127.0.0.1:PORT
	done chan error
	// stop is Ctrl-C.
	stop context.CancelFunc
}

func startSetup(t *testing.T, extra ...string) *setupRun {
	t.Helper()
	gh := ghtest.New(t, ghtest.Options{})
	web := httptest.NewServer(gh.WebHandler())
	t.Cleanup(web.Close)
	r := &setupRun{gh: gh, out: &outBuffer{}, dir: filepath.Join(t.TempDir(), "conf"), done: make(chan error, 1)}
	root := newRootCmd()
	root.SetOut(r.out)
	root.SetErr(r.out)
	root.SetArgs(append([]string{"setup", "--manifest", "../../app.yml", "--listen", "127.0.0.1:0", "--out", r.dir,
		"--github-url", web.URL, "--api-url", gh.URL(), "--webhook-url", testWebhook}, extra...))
	ctx, stop := context.WithCancel(t.Context())
	r.stop = stop
	root.SetContext(ctx)
	go func() { r.done <- root.Execute() }()
	open := regexp.MustCompile(`Open (http://127\.0\.0\.1:\d+)/ in your browser`)
	require.True(t, r.out.wait(time.Minute, func(out string) bool {
		m := open.FindStringSubmatch(out)
		if m != nil {
			r.base = m[1]
		}
		return m != nil
	}), "setup never printed its page: %s", r.out)
	return r
}

// wait returns the command's result.
func (r *setupRun) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-r.done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("setup did not end; output:\n%s", r.out)
		return nil
	}
}

// browser follows no redirects: the test plays each step the way a browser would.
var browser = &http.Client{Timeout: 10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func get(t *testing.T, u string) (int, string, http.Header) {
	t.Helper()
	resp, err := browser.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body), resp.Header
}

// startForm loads the local page and returns its form's action and manifest.
func (r *setupRun) startForm(t *testing.T) (action, manifest string) {
	t.Helper()
	status, body, _ := get(t, r.base+"/")
	require.Equal(t, http.StatusOK, status)
	doc, err := html.Parse(strings.NewReader(body))
	require.NoError(t, err)
	for n := range doc.Descendants() {
		attrs := map[string]string{}
		for _, a := range n.Attr {
			attrs[a.Key] = a.Val
		}
		switch {
		case n.Data == "form":
			require.Equal(t, "post", attrs["method"])
			action = attrs["action"]
		case n.Data == "input" && attrs["name"] == "manifest":
			require.Equal(t, "hidden", attrs["type"])
			manifest = attrs["value"]
		}
	}
	require.NotEmpty(t, action, body)
	require.NotEmpty(t, manifest, body)
	return action, manifest
}

// submit posts the form to GitHub's page and returns where GitHub sends the browser.
func submit(t *testing.T, action, manifest string) *url.URL {
	t.Helper()
	resp, err := browser.PostForm(action, url.Values{"manifest": {manifest}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
	to, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	return to
}

func TestSetupRegistersTheAppFromAppYML(t *testing.T) {
	t.Parallel()
	r := startSetup(t)
	action, manifest := r.startForm(t)

	// The manifest is app.yml as JSON, with the webhook and redirect set,
	// and the sessions page's sign-in callback under the webhook's host.
	want := map[string]any{}
	data, err := os.ReadFile("../../app.yml")
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &want))
	want["hook_attributes"].(map[string]any)["url"] = testWebhook
	want["redirect_url"] = r.base + "/callback"
	want["callback_urls"] = []any{strings.TrimSuffix(testWebhook, "/webhook") + "/sessions/callback"}
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(manifest), &got))
	require.Equal(t, want, got)
	require.Equal(t, map[string]any{"contents": "write", "issues": "write", "pull_requests": "write",
		"metadata": "read", "checks": "read", "actions": "read"}, got["default_permissions"])

	au, err := url.Parse(action)
	require.NoError(t, err)
	require.Equal(t, "/settings/apps/new", au.Path)
	state := au.Query().Get("state")
	require.Len(t, state, 40)

	// A redirect that does not carry our state is refused, its code unused.
	status, body, _ := get(t, r.base+"/callback?code=forged&state=0123")
	require.Equal(t, http.StatusBadRequest, status)
	require.Contains(t, body, "does not carry the state")
	require.Zero(t, r.gh.Calls(convertOp))
	requireNoFiles(t, r.dir)

	to := submit(t, action, manifest)
	require.Equal(t, r.base+"/callback", to.Scheme+"://"+to.Host+to.Path)
	require.Equal(t, state, to.Query().Get("state"))
	status, body, _ = get(t, to.String())
	require.Equal(t, http.StatusOK, status, body)
	require.Contains(t, body, "https://github.com/apps/issuesmith/installations/new")
	require.NoError(t, r.wait(t))
	require.Equal(t, 1, r.gh.Calls(convertOp))

	apps := r.gh.ManifestApps()
	require.Len(t, apps, 1)
	require.Empty(t, apps[0].Org)
	checkWrittenConfig(t, r, apps[0])

	// A second redirect (a reload) finds the server gone: nothing more happens.
	_, err = browser.Get(to.String())
	require.Error(t, err)
	require.Equal(t, 1, r.gh.Calls(convertOp))
}

// checkWrittenConfig checks modes and that bot serve's config loader takes
// the files, and that the key signs what the fake accepts.
func checkWrittenConfig(t *testing.T, r *setupRun, app ghtest.ManifestApp) {
	t.Helper()
	envPath, keyPath := filepath.Join(r.dir, "issuesmith.env"), filepath.Join(r.dir, "issuesmith.private-key.pem")
	for _, p := range []string{envPath, keyPath} {
		st, err := os.Stat(p)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), p)
	}
	cfg, err := config.ParseServer([]string{config.FileVar + "=" + envPath, config.EnvPrefix + "MODEL_NAME=m", "HOME=" + r.dir})
	require.NoError(t, err)
	require.Equal(t, r.gh.AppID(), cfg.AppID)
	require.Equal(t, app.WebhookSecret, cfg.WebhookSecret)
	require.Equal(t, r.gh.URL(), cfg.GitHubURL)
	require.Equal(t, "issuesmith[bot]", cfg.BotLogin)
	require.Equal(t, keyPath, cfg.PrivateKeyFile)
	require.Equal(t, app.ClientSecret, cfg.Sessions.OAuthClientSecret, "the sessions page's sign-in")
	require.NotEmpty(t, cfg.Sessions.OAuthClientID)
	require.Equal(t, strings.TrimSuffix(testWebhook, "/webhook"), cfg.Sessions.PublicURL)
	require.Empty(t, cfg.Sessions.PageOff(), "setup turns the sessions page on")
	key, err := cfg.Key()
	require.NoError(t, err)
	require.Equal(t, r.gh.PrivateKey(), key)

	ga, err := ghapp.NewApp(ghapp.AppConfig{AppID: cfg.AppID, PrivateKey: key, BaseURL: cfg.GitHubURL})
	require.NoError(t, err)
	tok, err := ga.Token(t.Context(), r.gh.Installation())
	require.NoError(t, err)
	require.NotEmpty(t, tok)

	out := r.out.String()
	for _, secret := range []string{app.WebhookSecret, app.ClientSecret, app.Code} {
		require.NotContains(t, out, secret)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(key)), "\n")[1:3] {
		require.NotContains(t, out, line)
	}
	require.Contains(t, out, "Install the App on the repositories it may work on: https://github.com/apps/issuesmith/installations/new")
	require.Contains(t, out, "ISSUESMITH_CONFIG_FILE="+envPath+" bot serve")
}

func requireNoFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if !errors.Is(err, os.ErrNotExist) {
		require.NoError(t, err)
	}
	require.Empty(t, entries)
}

func TestSetupConversionRefusedWritesNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"validation failed", http.StatusUnprocessableEntity,
			`{"message":"Validation Failed","documentation_url":"https://docs.github.com/rest"}`, "github answered 422 Unprocessable Entity: Validation Failed"},
		{"not found", http.StatusNotFound, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`, "already used or older than an hour"},
		{"server error", http.StatusInternalServerError, "oops", "github answered 500 Internal Server Error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := startSetup(t, "--org", "acme")
			r.gh.Inject(ghtest.Fault{Op: convertOp, Status: tt.status, Body: tt.body})
			action, manifest := r.startForm(t)
			require.Contains(t, action, "/organizations/acme/settings/apps/new?state=")
			to := submit(t, action, manifest)
			status, body, _ := get(t, to.String())
			require.Equal(t, http.StatusBadGateway, status)
			require.Contains(t, body, "Nothing was saved")

			err := r.wait(t)
			require.ErrorContains(t, err, tt.want)
			require.ErrorContains(t, err, "nothing was written")
			require.NotContains(t, err.Error(), to.Query().Get("code"))
			requireNoFiles(t, r.dir)
			apps := r.gh.ManifestApps()
			require.Len(t, apps, 1)
			require.Equal(t, "acme", apps[0].Org)
		})
	}
}

func TestSetupRefusesBeforeServing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	existing := filepath.Join(dir, "issuesmith.env")
	require.NoError(t, os.WriteFile(existing, []byte("ISSUESMITH_APP_ID=7\n"), 0o600))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"existing file", []string{"--out", dir, "--webhook-url", testWebhook}, "already exists"},
		{"example webhook", []string{"--out", t.TempDir()}, "pass --webhook-url"},
		{"bad webhook", []string{"--out", t.TempDir(), "--webhook-url", "/webhook"}, "hook_attributes.url"},
		{"missing manifest", []string{"--out", t.TempDir(), "--manifest", "nope.yml", "--webhook-url", testWebhook}, "read the App manifest: open nope.yml: no such file or directory (run in the issuesmith checkout or pass --manifest PATH)"},
		{"bad listen address", []string{"--out", t.TempDir(), "--webhook-url", testWebhook, "--listen", "127.0.0.1:-1"}, "listen"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"setup", "--manifest", "../../app.yml"}, tt.args...)
			_, err := runBot(t, args...)
			require.ErrorContains(t, err, tt.want)
			var ee *exitError
			require.True(t, errors.As(err, &ee))
			require.Equal(t, 2, ee.code)
		})
	}
	data, err := os.ReadFile(existing)
	require.NoError(t, err)
	require.Equal(t, "ISSUESMITH_APP_ID=7\n", string(data))
}

func TestSetupSaveFailureRemovesTheKey(t *testing.T) {
	t.Parallel()
	r := startSetup(t)
	action, manifest := r.startForm(t)
	// A file appears at the settings' path while the user is on GitHub:
	// setup must not overwrite it, and must not leave the key behind.
	envPath := filepath.Join(r.dir, "issuesmith.env")
	require.NoError(t, os.MkdirAll(r.dir, 0o700))
	require.NoError(t, os.WriteFile(envPath, []byte("mine\n"), 0o600))
	to := submit(t, action, manifest)
	status, _, _ := get(t, to.String())
	require.Equal(t, http.StatusInternalServerError, status)
	err := r.wait(t)
	require.ErrorContains(t, err, "save app settings")
	require.ErrorContains(t, err, "nothing was written")
	entries, err := os.ReadDir(r.dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	data, err := os.ReadFile(envPath)
	require.NoError(t, err)
	require.Equal(t, "mine\n", string(data))
}

func TestSetupStoppedWritesNothing(t *testing.T) {
	t.Parallel()
	r := startSetup(t)
	r.stop()
	err := r.wait(t)
	require.ErrorContains(t, err, "waiting for github's redirect: context canceled; nothing was written")
	require.NoDirExists(t, r.dir, "--out is created only when saving")
	_, err = browser.Get(r.base + "/")
	require.Error(t, err, "the local page is gone")
}
