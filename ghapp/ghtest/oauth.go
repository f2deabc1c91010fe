package ghtest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
)

// The App's OAuth web flow, as github.com serves it to a person signing in
// to a site with the App's client id: GET /login/oauth/authorize (the
// browser, already signed in to GitHub as SignInAs said or through its own
// sign-in, oauth_browser.go) redirects back with
// a one-time code; POST /login/oauth/access_token exchanges the code, with
// the client secret and the PKCE verifier, for a user token (ghu_...). With
// that token the fake serves GET /user and GET /repos/{owner}/{repo} (404
// unless AddUser gave the person the repository), validated against the
// description like every API call.

// oauthState is the fake's OAuth side (in state, guarded by s.mu).
type oauthState struct {
	clientID, clientSecret string
	callback               string            // the App's registered callback URL ("" accepts any)
	signedIn               string            // the browser's GitHub session
	choose                 bool              // a signed-out authorize lists the people (ChooseSignIn)
	users                  map[string]string // login → readable repositories, ","-joined, lower case
	codes                  map[string]*oauthCode
	tokens                 map[string]userToken
	exchanges              int // successful code exchanges
}

type oauthCode struct {
	login, redirect, challenge string
	expires                    time.Time
	used                       bool
}

type userToken struct {
	login   string
	expires time.Time
}

func (o *oauthState) init() {
	if o.users == nil {
		o.users, o.codes, o.tokens = map[string]string{}, map[string]*oauthCode{}, map[string]userToken{}
		o.clientID, o.clientSecret = "Iv23ghtest"+randHex(4), randHex(20)
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// OAuthClient returns the App's OAuth client id and secret.
func (s *Server) OAuthClient() (id, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.oauth.init()
	return s.st.oauth.clientID, s.st.oauth.clientSecret
}

// SetOAuthCallback registers the App's callback URL: authorize refuses (and
// fails the test) a redirect_uri outside it.
func (s *Server) SetOAuthCallback(u string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.oauth.init()
	s.st.oauth.callback = u
}

// AddUser makes login a GitHub user who can read repos ("owner/name").
func (s *Server) AddUser(login string, repos ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.oauth.init()
	s.st.oauth.users[login] = strings.ToLower(strings.Join(repos, ","))
}

// SignInAs sets who the browser is signed in to GitHub as: the person the
// next authorize answers for.
func (s *Server) SignInAs(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.oauth.init()
	s.st.oauth.signedIn = login
}

// RevokeUserTokens revokes login's user tokens: GitHub answers 401 to them.
func (s *Server) RevokeUserTokens(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for tok, u := range s.st.oauth.tokens {
		if u.login == login {
			delete(s.st.oauth.tokens, tok)
		}
	}
}

// UserTokens returns every user token handed out and not revoked, sorted
// (tests look for them where secrets must never be).
func (s *Server) UserTokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for tok := range s.st.oauth.tokens {
		out = append(out, tok)
	}
	sort.Strings(out)
	return out
}

// OAuthExchanges counts the codes exchanged for a token.
func (s *Server) OAuthExchanges() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.oauth.exchanges
}

// serveOAuth answers the web flow's two pages and the sign-in page
// (oauth_browser.go); it returns the status.
func (s *Server) serveOAuth(w http.ResponseWriter, r *http.Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.oauth.init()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/login/oauth/authorize":
		return s.authorize(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/login/oauth/access_token":
		return s.accessToken(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/login":
		return s.signIn(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/favicon.ico":
		http.NotFound(w, r) // a browser's, after a page of the sign-in
		return http.StatusNotFound
	}
	s.failf("web: %s %s is not a page of GitHub's OAuth web flow", r.Method, r.URL.Path)
	http.NotFound(w, r)
	return http.StatusNotFound
}

// authorize checks the request as GitHub does (and what our bot must send:
// state and an S256 PKCE challenge), then redirects with a code.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) int {
	o := &s.st.oauth
	q := r.URL.Query()
	redirect := q.Get("redirect_uri")
	switch {
	case q.Get("client_id") != o.clientID:
		s.failf("web: authorize with an unknown client_id %q", q.Get("client_id"))
		http.Error(w, "The client_id is not valid", http.StatusNotFound)
		return http.StatusNotFound
	case redirect == "" || o.callback != "" && !strings.HasPrefix(redirect, o.callback):
		s.failf("web: authorize with redirect_uri %q outside the App's callback URL %q", redirect, o.callback)
		http.Error(w, "The redirect_uri is not associated with this application.", http.StatusBadRequest)
		return http.StatusBadRequest
	case q.Get("state") == "" || q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		s.failf("web: authorize without state or an S256 PKCE challenge: %s", r.URL.RawQuery)
		http.Error(w, "state and code_challenge (S256) are required", http.StatusBadRequest)
		return http.StatusBadRequest
	case s.browserLogin(r) == "" && o.choose:
		return s.chooseSignIn(w, r)
	case s.browserLogin(r) == "":
		s.failf("web: authorize while no one is signed in to the fake GitHub (SignInAs)")
		http.Error(w, "Sign in to GitHub", http.StatusUnauthorized)
		return http.StatusUnauthorized
	}
	code := randHex(10)
	o.codes[code] = &oauthCode{login: s.browserLogin(r), redirect: redirect, challenge: q.Get("code_challenge"),
		expires: time.Now().Add(10 * time.Minute)}
	u, err := url.Parse(redirect)
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return http.StatusBadRequest
	}
	v := u.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	u.RawQuery = v.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
	return http.StatusFound
}

// accessToken exchanges a code. Like GitHub it answers a refused exchange
// with 200 and an "error" field.
func (s *Server) accessToken(w http.ResponseWriter, r *http.Request) int {
	o := &s.st.oauth
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return http.StatusBadRequest
	}
	f := r.PostForm
	c := o.codes[f.Get("code")]
	var refused string
	switch {
	case f.Get("client_id") != o.clientID || f.Get("client_secret") != o.clientSecret:
		refused = "incorrect_client_credentials"
	case c == nil || c.used || time.Now().After(c.expires):
		refused = "bad_verification_code"
	case f.Get("redirect_uri") != "" && f.Get("redirect_uri") != c.redirect:
		refused = "redirect_uri_mismatch"
	case pkceChallenge(f.Get("code_verifier")) != c.challenge:
		refused = "invalid_grant"
	}
	if c != nil {
		c.used = true // a code is good for one attempt
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if refused != "" {
		_ = json.NewEncoder(w).Encode(obj{"error": refused, "error_description": "refused by the fake GitHub",
			"error_uri": "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors"})
		return http.StatusOK
	}
	tok := "ghu_" + randHex(18)
	o.tokens[tok] = userToken{login: c.login, expires: time.Now().Add(8 * time.Hour)}
	o.exchanges++
	_ = json.NewEncoder(w).Encode(obj{"access_token": tok, "expires_in": 28800, "refresh_token": "ghr_" + randHex(30),
		"refresh_token_expires_in": 15897600, "scope": "", "token_type": "bearer"})
	return http.StatusOK
}

func pkceChallenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// userOps are what the fake serves to a user token.
var userOps = map[string]func(c *call) response{
	"GET /user":                 getUser,
	"GET /repos/{owner}/{repo}": getRepoAsUser,
}

// authenticateUser checks a user token (s.mu held): 401 when revoked or
// expired, 404 for a repository the person cannot read. Neither fails the
// test: the sessions page must cope with both.
func (s *Server) authenticateUser(c *call, cred string) (response, bool) {
	u, found := s.st.oauth.tokens[cred]
	if !found || time.Now().After(u.expires) {
		return errorResp(http.StatusUnauthorized, "Bad credentials"), false
	}
	if userOps[c.op] == nil {
		s.failf("%s with a user token: the fake serves only GET /user and GET /repos/{owner}/{repo} to people", c.op)
		return errorResp(http.StatusForbidden, "Resource not accessible by user token"), false
	}
	c.user = u.login
	if owner := c.param("owner"); owner != "" {
		full := strings.ToLower(owner + "/" + c.param("repo"))
		readable := strings.Split(s.st.oauth.users[u.login], ",")
		if s.st.repos[owner+"/"+c.param("repo")] == nil || !slices.Contains(readable, full) {
			return errorResp(http.StatusNotFound, "Not Found"), false
		}
	}
	return response{}, true
}

func getUser(c *call) response {
	o := userObj(c.user)
	o["id"] = int64(len(c.user))*1000 + int64(c.user[0])
	o["user_view_type"] = "private" // the authenticated person sees their own private view
	return ok(http.StatusOK, o)
}

func getRepoAsUser(c *call) response {
	o := c.s.repoObj(c.repoOf())
	o["permissions"] = obj{"admin": false, "maintain": false, "push": false, "triage": false, "pull": true}
	return ok(http.StatusOK, o)
}
