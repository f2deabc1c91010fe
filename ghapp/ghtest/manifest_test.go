package ghtest

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func postManifest(t *testing.T, web string, path, manifest string) *http.Response {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(web+path, url.Values{"manifest": {manifest}})
	require.NoError(t, err)
	resp.Body.Close()
	return resp
}

func TestManifestPageRefusesWhatGitHubWould(t *testing.T) {
	t.Parallel()
	good := `{"name":"bot","url":"https://e.test","hook_attributes":{"url":"https://e.test/webhook"},` +
		`"redirect_url":"http://127.0.0.1:3000/callback","default_permissions":{"issues":"write"}}`
	tests := []struct {
		name, path, manifest, want string
	}{
		{"unknown key", "/settings/apps/new", strings.Replace(good, `"name"`, `"nam"`, 1), "unknown field"},
		{"no redirect", "/settings/apps/new", strings.Replace(good, `"redirect_url"`, `"setup_url"`, 1), "redirect_url"},
		{"bad level", "/settings/apps/new", strings.Replace(good, `"write"`, `"all"`, 1), "default_permissions.issues"},
		{"not the page", "/settings/apps", good, "not the manifest flow's page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{TB: t}
			s := New(rec, Options{})
			web := httptest.NewServer(s.WebHandler())
			defer web.Close()
			resp := postManifest(t, web.URL, tt.path, tt.manifest)
			require.GreaterOrEqual(t, resp.StatusCode, 400)
			errs := rec.take()
			require.Len(t, errs, 1)
			require.Contains(t, errs[0], tt.want)
			require.Empty(t, s.ManifestApps())
		})
	}
}

func TestManifestCodeConvertsOnce(t *testing.T) {
	t.Parallel()
	s := New(t, Options{AppID: 9})
	web := httptest.NewServer(s.WebHandler())
	defer web.Close()
	manifest := `{"name":"My Bot!","url":"https://e.test","hook_attributes":{"url":"https://e.test/webhook"},` +
		`"redirect_url":"http://127.0.0.1:3000/callback?x=1","default_permissions":{"issues":"write"},"default_events":["issues"]}`
	resp := postManifest(t, web.URL, "/organizations/acme/settings/apps/new?state=s1", manifest)
	require.Equal(t, http.StatusFound, resp.StatusCode)
	to, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, "/callback", to.Path)
	require.Equal(t, "1", to.Query().Get("x"))
	require.Equal(t, "s1", to.Query().Get("state"))
	code := to.Query().Get("code")

	status, body := do(t, s, "POST", "/app-manifests/"+code+"/conversions", "", "")
	require.Equal(t, http.StatusCreated, status, body)
	require.Contains(t, body, `"slug":"my-bot"`)
	require.Contains(t, body, `"id":9`)
	apps := s.ManifestApps()
	require.Len(t, apps, 1)
	require.Equal(t, "acme", apps[0].Org)
	require.True(t, apps[0].Converted)
	require.Contains(t, body, `"webhook_secret":"`+apps[0].WebhookSecret+`"`)

	status, _ = do(t, s, "POST", "/app-manifests/"+code+"/conversions", "", "")
	require.Equal(t, http.StatusNotFound, status, "a code works once")
}
