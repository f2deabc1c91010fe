package ghtest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/require"
)

// The web flow hands a code to the redirect, the code (with the PKCE
// verifier) becomes a user token once, and the token reads the person's
// own repositories only; a revoked token gets 401.
func TestOAuthWebFlow(t *testing.T) {
	t.Parallel()
	s := New(t, Options{})
	s.AddRepo(Repo{Owner: "acme", Name: "web"})
	s.AddRepo(Repo{Owner: "acme", Name: "secret"})
	s.AddUser("alice", "acme/web")
	s.SignInAs("alice")
	id, secret := s.OAuthClient()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	verifier := "a-verifier-of-enough-length-0123456789abcdef"
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"client_id": {id}, "redirect_uri": {"http://bot.example/sessions/callback"}, "state": {"st1"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
	resp, err := noRedirect.Get(strings.TrimSuffix(s.URL(), "/") + "/login/oauth/authorize?" + q.Encode())
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, "st1", loc.Query().Get("state"))
	code := loc.Query().Get("code")

	exchange := func(verifier string) map[string]any {
		form := url.Values{"client_id": {id}, "client_secret": {secret}, "code": {code},
			"redirect_uri": {"http://bot.example/sessions/callback"}, "code_verifier": {verifier}}
		req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(s.URL(), "/")+"/login/oauth/access_token",
			strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		return out
	}
	got := exchange(verifier)
	tok, _ := got["access_token"].(string)
	require.True(t, strings.HasPrefix(tok, "ghu_"), "%v", got)
	require.Equal(t, "bad_verification_code", exchange(verifier)["error"], "a code is used once")

	gh := github.NewClient(nil).WithAuthToken(tok)
	gh.BaseURL, _ = url.Parse(s.URL())
	ctx := context.Background()
	me, _, err := gh.Users.Get(ctx, "")
	require.NoError(t, err)
	require.Equal(t, "alice", me.GetLogin())
	rp, _, err := gh.Repositories.Get(ctx, "acme", "web")
	require.NoError(t, err)
	require.True(t, rp.GetPermissions()["pull"])
	_, resp2, err := gh.Repositories.Get(ctx, "acme", "secret")
	require.Error(t, err)
	require.Equal(t, http.StatusNotFound, resp2.StatusCode)
	s.RevokeUserTokens("alice")
	_, resp3, err := gh.Users.Get(ctx, "")
	require.Error(t, err)
	require.Equal(t, http.StatusUnauthorized, resp3.StatusCode)
}
