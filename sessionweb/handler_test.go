package sessionweb

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

const publicURL = "https://bot.example"

// fixture is the page on a real listener, the fake GitHub with its OAuth
// flow, and a real store holding two sessions: acme/web (alice can read
// it) and acme/secret (only bob can).
type fixture struct {
	gh     *ghtest.Server
	st     *store.Store
	h      *Handler
	srv    *httptest.Server
	web    int64
	secret int64
	logs   *bytes.Buffer
}

func newFixture(t *testing.T, edit ...func(*Options)) *fixture {
	t.Helper()
	gh := ghtest.New(t, ghtest.Options{})
	gh.AddRepo(ghtest.Repo{Owner: "acme", Name: "web"})
	gh.AddRepo(ghtest.Repo{Owner: "acme", Name: "secret"})
	gh.AddUser("alice", "acme/web")
	gh.AddUser("bob", "acme/secret")
	gh.AddUser("carol", "acme/web")
	gh.AddUser("root")
	gh.SetOAuthCallback(publicURL + "/sessions/callback")
	id, secret := gh.OAuthClient()
	st := storetest.SQLite(t)
	f := &fixture{gh: gh, st: st, logs: &bytes.Buffer{}}
	f.web = record(t, st, "web", "the bug is in handler.go")
	f.secret = record(t, st, "secret", "TOP-SECRET-REPLY")
	opts := Options{Store: st, PublicURL: publicURL, GitHubURL: gh.URL(), ClientID: id, ClientSecret: secret,
		Secret: []byte("a server secret of enough bytes"), Operators: []string{"root"},
		Logger: slog.New(slog.NewTextHandler(f.logs, nil))}
	for _, e := range edit {
		e(&opts)
	}
	h, err := New(opts)
	require.NoError(t, err)
	f.h = h
	f.srv = httptest.NewServer(h)
	t.Cleanup(f.srv.Close)
	return f
}

// record writes a small real session: a model call, a tool call, an edit.
func record(t *testing.T, st *store.Store, repo, reply string) int64 {
	t.Helper()
	ctx := t.Context()
	r := session.Start(ctx, st, store.Session{InstallationID: 42, Owner: "acme", Repo: repo, Issue: 7, Requester: "dana"},
		session.Options{})
	r.Begin(ctx, session.StageExplore, "explore")
	m := r.Model(replyModel{reply})
	_, err := m.Chat(ctx, llm.Request{Role: llm.RoleExplorer, Messages: []llm.Message{
		{Role: llm.System, Content: "You are the explorer."},
		{Role: llm.User, Content: "Untrusted.\n<issue>\nIssue #7: Handler drops <b>bodies</b>\n\nFix it.\n</issue>"}}})
	require.NoError(t, err)
	grep := r.Tool(llm.NewTool("grep", "Search.", func(_ context.Context, a struct {
		Pattern string `json:"pattern"`
	}) (llm.ToolResult, error) {
		return llm.ToolResult{Content: "handler.go:3: " + a.Pattern}, nil
	}))
	_, err = grep.Call(ctx, json.RawMessage(`{"pattern":"len(b) < 1 && ok"}`))
	require.NoError(t, err)
	r.Finish(ctx)
	r.Begin(ctx, session.StageCode, "code")
	r.Edit(ctx, session.Edit{Path: "handler.go", Applied: true, Where: "1 block(s) applied",
		Diff: "--- a/handler.go\n+++ b/handler.go\n@@ -3 +3 @@\n-old line\n+new line\n"})
	r.Check(ctx, session.Check{Name: "go build", OK: true, Output: "ok"}, time.Second)
	r.Finish(ctx)
	return r.ID()
}

// replyModel answers every request with one text; the page tests need a
// recorded session, not a model server.
type replyModel struct{ text string }

func (m replyModel) Chat(context.Context, llm.Request) (*llm.Response, error) {
	return &llm.Response{Message: llm.Message{Role: llm.Assistant, Content: m.text}, Model: "m1",
		Usage: llm.Usage{PromptTokens: 1200, CompletionTokens: 34}, Cost: 0.0123, FinishReason: llm.FinishStop}, nil
}

var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// do sends a request with cookies and returns the answer and its body.
func (f *fixture) do(t *testing.T, method, path string, cookies ...*http.Cookie) (*http.Response, string) {
	t.Helper()
	target := path
	if !strings.HasPrefix(path, "http") {
		target = f.srv.URL + path
	}
	req, err := http.NewRequest(method, target, nil)
	require.NoError(t, err)
	for _, c := range cookies {
		if c != nil {
			req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		}
	}
	resp, err := noFollow.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

func cookieOf(resp *http.Response, name string) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == name && c.Value != "" {
			return c
		}
	}
	return nil
}

// startSignIn follows the flow up to GitHub's redirect back: the state
// cookie and the callback path (on the bot's listener) with code and state.
func (f *fixture) startSignIn(t *testing.T, login string) (*http.Cookie, string) {
	t.Helper()
	f.gh.SignInAs(login)
	resp, _ := f.do(t, http.MethodGet, "/sessions/login?return=/sessions")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	state := cookieOf(resp, stateCookie)
	require.NotNil(t, state)
	require.True(t, state.HttpOnly)
	require.True(t, state.Secure)
	require.Equal(t, http.SameSiteLaxMode, state.SameSite)
	resp, _ = f.do(t, http.MethodGet, resp.Header.Get("Location"))
	require.Equal(t, http.StatusFound, resp.StatusCode)
	back, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, "bot.example", back.Host)
	return state, back.Path + "?" + back.RawQuery
}

func (f *fixture) signIn(t *testing.T, login string) *http.Cookie {
	t.Helper()
	state, callback := f.startSignIn(t, login)
	resp, _ := f.do(t, http.MethodGet, callback, state)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/sessions", resp.Header.Get("Location"))
	c := cookieOf(resp, signInCookie)
	require.NotNil(t, c)
	require.True(t, c.HttpOnly)
	require.True(t, c.Secure)
	require.Equal(t, http.SameSiteLaxMode, c.SameSite)
	require.LessOrEqual(t, c.MaxAge, int((2 * time.Hour).Seconds()))
	return c
}

func TestSignedInPersonSeesOnlyWhatGitHubLetsThemRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	alice := f.signIn(t, "alice")
	resp, body := f.do(t, http.MethodGet, "/sessions", alice)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, body, "acme/web")
	require.Contains(t, body, "signed in as <b>alice</b>")
	require.NotContains(t, body, "acme/secret")
	require.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
	require.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'none'")

	resp, body = f.do(t, http.MethodGet, "/sessions/"+itoa(f.web), alice)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	for _, want := range []string{"the bug is in handler.go", "explorer · m1 · 1200 in", "<details", `<span class="add">&#43;new line</span>`,
		`<span class="del">-old line</span>`, "go build", "You are the explorer.", "cost 0.0123",
		"<b>Handler drops &lt;b&gt;bodies&lt;/b&gt;</b>", "<title>Session " + itoa(f.web) + ": Handler drops &lt;b&gt;bodies&lt;/b&gt;",
		"1 call ·", "1 model call ·", "edit handler.go: applied 1 block\n",
		"&#34;pattern&#34;: &#34;len(b) &lt; 1 &amp;&amp; ok&#34;"} {
		require.Contains(t, body, want)
	}
	for _, bad := range []string{`\u003c`, `\u0026`, "1 model calls", "1 calls", "block(s)"} {
		require.NotContains(t, body, bad)
	}

	resp, body = f.do(t, http.MethodGet, "/sessions/"+itoa(f.secret), alice)
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.NotContains(t, body, "TOP-SECRET-REPLY")

	bob := f.signIn(t, "bob")
	resp, body = f.do(t, http.MethodGet, "/sessions", bob)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NotContains(t, body, "/sessions/"+itoa(f.web)+`"`, "no row of a repository bob cannot read")
	resp, body = f.do(t, http.MethodGet, "/sessions/"+itoa(f.web), bob)
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.NotContains(t, body, "the bug is in handler.go")

	root := f.signIn(t, "root")
	_, body = f.do(t, http.MethodGet, "/sessions", root)
	require.Contains(t, body, "acme/web")
	require.Contains(t, body, "acme/secret")

	resp, _ = f.do(t, http.MethodGet, "/sessions/999999", alice)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	resp, _ = f.do(t, http.MethodGet, "/sessions/nope", alice)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	// No token reaches a page, a log or a cookie in the clear.
	for _, tok := range f.gh.UserTokens() {
		require.NotContains(t, f.logs.String(), tok)
		require.NotContains(t, alice.Value+bob.Value+root.Value, tok)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestRunningSessionRefreshes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	alice := f.signIn(t, "alice")
	_, body := f.do(t, http.MethodGet, "/sessions/"+itoa(f.web), alice)
	require.Contains(t, body, `<meta http-equiv="refresh" content="10">`)
	require.NoError(t, f.st.EndSession(t.Context(), f.web, store.StateDone))
	_, body = f.do(t, http.MethodGet, "/sessions/"+itoa(f.web), alice)
	require.NotContains(t, body, `http-equiv="refresh"`)
}

func TestSignedOutSeesOnlyTheSignInPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, p := range []string{"/sessions", "/sessions/" + itoa(f.web)} {
		resp, body := f.do(t, http.MethodGet, p)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		require.Contains(t, body, "Sign in with GitHub")
		require.NotContains(t, body, "acme/web")
	}
	alice := f.signIn(t, "alice")
	forged := &http.Cookie{Name: signInCookie, Value: "eyJsIjoicm9vdCJ9"}
	altered := &http.Cookie{Name: signInCookie, Value: flip(alice.Value)}
	expiredVal, err := f.h.seal.seal(signInCookie, signIn{Login: "root", Token: "x", Expires: time.Now().Add(-time.Minute)})
	require.NoError(t, err)
	expired := &http.Cookie{Name: signInCookie, Value: expiredVal}
	// A state cookie is not a sign-in, even though the same key sealed it.
	stateVal, err := f.h.seal.seal(stateCookie, signIn{Login: "root", Token: "x", Expires: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	moved := &http.Cookie{Name: signInCookie, Value: stateVal}
	for name, c := range map[string]*http.Cookie{"forged": forged, "altered": altered, "expired": expired, "moved": moved} {
		resp, body := f.do(t, http.MethodGet, "/sessions", c)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, name)
		require.NotContains(t, body, "acme/", name)
	}
}

func flip(s string) string {
	b := []byte(s)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

func TestCallbackRefusesWrongStateAndReplayedCode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	state, callback := f.startSignIn(t, "alice")
	u, err := url.Parse(callback)
	require.NoError(t, err)
	q := u.Query()
	code := q.Get("code")

	wrong := url.Values{"code": {code}, "state": {"not-the-state"}}
	resp, _ := f.do(t, http.MethodGet, "/sessions/callback?"+wrong.Encode(), state)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Nil(t, cookieOf(resp, signInCookie))
	resp, _ = f.do(t, http.MethodGet, callback) // no state cookie: another browser
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Nil(t, cookieOf(resp, signInCookie))
	require.Zero(t, f.gh.OAuthExchanges(), "nothing was exchanged")

	resp, _ = f.do(t, http.MethodGet, callback, state)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.NotNil(t, cookieOf(resp, signInCookie))
	// The same callback again: its state was used.
	resp, _ = f.do(t, http.MethodGet, callback, state)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Nil(t, cookieOf(resp, signInCookie))
	// The used code under a fresh state: GitHub refuses it.
	state2, callback2 := f.startSignIn(t, "alice")
	u2, err := url.Parse(callback2)
	require.NoError(t, err)
	replay := url.Values{"code": {code}, "state": {u2.Query().Get("state")}}
	resp, _ = f.do(t, http.MethodGet, "/sessions/callback?"+replay.Encode(), state2)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Nil(t, cookieOf(resp, signInCookie))
	require.Equal(t, 1, f.gh.OAuthExchanges())
}

func TestRefusedTokenSendsBackToSignIn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	carol := f.signIn(t, "carol")
	f.gh.RevokeUserTokens("carol")
	resp, body := f.do(t, http.MethodGet, "/sessions", carol)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Contains(t, body, "GitHub no longer accepts your sign-in")
	require.NotContains(t, body, "acme/web")
	cleared := false
	for _, c := range resp.Cookies() {
		cleared = cleared || (c.Name == signInCookie && c.MaxAge < 0)
	}
	require.True(t, cleared, "the sign-in cookie is cleared")
}

func TestListFiltersAndPages(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *Options) { o.PageSize = 1 })
	require.NoError(t, f.st.EndSession(t.Context(), f.secret, store.StateFailed))
	root := f.signIn(t, "root")
	_, body := f.do(t, http.MethodGet, "/sessions", root)
	require.Contains(t, body, "/sessions/"+itoa(f.secret)+`"`)
	require.NotContains(t, body, "/sessions/"+itoa(f.web)+`"`)
	require.Contains(t, body, "Older →")
	_, body = f.do(t, http.MethodGet, "/sessions?page=2", root)
	require.Contains(t, body, "/sessions/"+itoa(f.web)+`"`)
	require.Contains(t, body, "← Newer")
	_, body = f.do(t, http.MethodGet, "/sessions?state=active", root)
	require.Contains(t, body, "/sessions/"+itoa(f.web)+`"`)
	_, body = f.do(t, http.MethodGet, "/sessions?repo=acme/secret", root)
	require.Contains(t, body, "/sessions/"+itoa(f.secret)+`"`)
	require.NotContains(t, body, "/sessions/"+itoa(f.web)+`"`)
}

func TestWebURL(t *testing.T) {
	t.Parallel()
	for api, web := range map[string]string{
		"https://api.github.com/":         "https://github.com",
		"https://ghe.example.com/api/v3/": "https://ghe.example.com",
		"http://127.0.0.1:4000/":          "http://127.0.0.1:4000",
	} {
		got, err := WebURL(api)
		require.NoError(t, err)
		require.Equal(t, web, got)
	}
	require.Equal(t, "/sessions", localPath("/sessions", "//evil.example/sessions"))
	require.Equal(t, "/sessions", localPath("/sessions", "https://evil.example/"))
	require.Equal(t, "/sessions/3", localPath("/sessions", "/sessions/3"))
}
