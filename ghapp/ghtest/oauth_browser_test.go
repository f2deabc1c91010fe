package ghtest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/require"
)

// Two browsers (two cookie jars) sign in to the fake as two people through
// its sign-in links, and authorize answers each for its own person; a
// signed-out browser is shown the people to choose from; an unknown person
// and a return address elsewhere are refused.
func TestBrowserSignIn(t *testing.T) {
	t.Parallel()
	s := New(t, Options{})
	s.AddRepo(Repo{Owner: "acme", Name: "web"})
	s.AddUser("alice", "acme/web")
	s.AddUser("mallory")
	const callback = "http://bot.example/sessions/callback"
	s.SetOAuthCallback(callback)
	s.ChooseSignIn()
	id, secret := s.OAuthClient()
	root := strings.TrimSuffix(s.URL(), "/")
	verifier := "a-verifier-of-enough-length-0123456789abcdef"
	sum := sha256.Sum256([]byte(verifier))
	authorize := root + "/login/oauth/authorize?" + url.Values{"client_id": {id}, "redirect_uri": {callback},
		"state": {"st"}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"}}.Encode()
	browser := func() *http.Client {
		jar, err := cookiejar.New(nil)
		require.NoError(t, err)
		return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	get := func(c *http.Client, u string) (*http.Response, string) {
		resp, err := c.Get(u)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, string(b)
	}
	whoSignsIn := func(c *http.Client) string {
		resp, _ := get(c, authorize)
		require.Equal(t, http.StatusFound, resp.StatusCode)
		loc, err := url.Parse(resp.Header.Get("Location"))
		require.NoError(t, err)
		form := url.Values{"client_id": {id}, "client_secret": {secret}, "code": {loc.Query().Get("code")},
			"redirect_uri": {callback}, "code_verifier": {verifier}}
		tr, err := http.PostForm(root+"/login/oauth/access_token", form)
		require.NoError(t, err)
		defer tr.Body.Close()
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		require.NoError(t, json.NewDecoder(tr.Body).Decode(&tok))
		gh := github.NewClient(nil).WithAuthToken(tok.AccessToken)
		gh.BaseURL, _ = url.Parse(s.URL())
		me, _, err := gh.Users.Get(context.Background(), "")
		require.NoError(t, err)
		return me.GetLogin()
	}

	alice, mallory := browser(), browser()
	for c, login := range map[*http.Client]string{alice: "alice", mallory: "mallory"} {
		resp, _ := get(c, s.SignInLink(login, "http://bot.example/sessions/login?return=%2Fsessions"))
		require.Equal(t, http.StatusFound, resp.StatusCode)
		require.Equal(t, "http://bot.example/sessions/login?return=%2Fsessions", resp.Header.Get("Location"))
	}
	require.Equal(t, "alice", whoSignsIn(alice))
	require.Equal(t, "mallory", whoSignsIn(mallory))

	signedOut := browser()
	resp, page := get(signedOut, authorize)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, page, "Sign in to the fake GitHub")
	require.Contains(t, page, ">alice</a> (can read acme/web)")
	require.Contains(t, page, ">mallory</a> (can read no repository)")
	back := "/login/oauth/authorize?" + strings.SplitN(authorize, "?", 2)[1]
	require.Contains(t, page, `href="/login?login=alice&amp;return_to=`+url.QueryEscape(back)+`"`)
	resp, _ = get(signedOut, root+"/login?"+url.Values{"login": {"alice"}, "return_to": {back}}.Encode())
	require.Equal(t, back, resp.Header.Get("Location"))
	require.Equal(t, "alice", whoSignsIn(signedOut))

	resp, _ = get(signedOut, root+"/favicon.ico")
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "a browser's favicon request is answered, not a failure")
	resp, _ = get(browser(), s.SignInLink("eve", "/"))
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	for _, next := range []string{"http://evil.example/", "//evil.example/", "https://bot.example/", "javascript:alert(1)", ""} {
		resp, _ = get(browser(), s.SignInLink("alice", next))
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, next)
	}
}
