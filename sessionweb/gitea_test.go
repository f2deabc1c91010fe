package sessionweb

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/gitea/giteaserver"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

// giteaFixture is a real Gitea with a private repository root/secret
// (alice a collaborator, bob nothing), an OAuth2 application of root's
// for the page, and the page at /gitea-sessions on a real listener, over
// a real store holding a Gitea session of root/secret and a GitHub
// session of a repository of the same name.
type giteaFixture struct {
	gitea  *giteaserver.Server
	page   string // the page's URL
	h      *Handler
	ofGT   int64 // the Gitea session
	ofGH   int64 // the GitHub session of "root/secret"
	public int64 // a Gitea session of root/open, a public repository
}

func newGiteaFixture(t *testing.T) *giteaFixture {
	t.Helper()
	srv := giteaserver.Start(t)
	rootTok := srv.Token("root", "write:repository,write:user")
	srv.User("alice", "read:user")
	srv.User("bob", "read:user")
	srv.API(rootTok, "POST", "/user/repos", map[string]any{"name": "secret", "private": true, "auto_init": true}, nil)
	srv.API(rootTok, "POST", "/user/repos", map[string]any{"name": "open", "auto_init": true}, nil)
	srv.API(rootTok, "PUT", "/repos/root/secret/collaborators/alice", map[string]any{"permission": "read"}, nil)

	var h atomic.Pointer[Handler]
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.Load().ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	var app struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	srv.API(rootTok, "POST", "/user/applications/oauth2", map[string]any{"name": "issuesmith sessions",
		"redirect_uris": []string{ts.URL + "/gitea-sessions/callback"}, "confidential_client": true}, &app)

	st := storetest.SQLite(t)
	f := &giteaFixture{gitea: srv, page: ts.URL + "/gitea-sessions"}
	f.ofGT = recordAt(t, st, -1, "root", "secret", "GITEA-SECRET-REPLY")
	f.ofGH = recordAt(t, st, 42, "root", "secret", "GITHUB-REPLY")
	f.public = recordAt(t, st, -1, "root", "open", "PUBLIC-REPLY")
	page, err := New(Options{Store: st, PublicURL: ts.URL, Base: "/gitea-sessions", GiteaURL: srv.URL,
		ClientID: app.ClientID, ClientSecret: app.ClientSecret, Secret: []byte("a server secret of enough bytes"),
		Operators: []string{"root"}, InstallationSign: -1, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	h.Store(page)
	f.h = page
	return f
}

// signIn signs login in to Gitea and then to the page; it returns the
// browser, signed in, and the list it landed on.
func (f *giteaFixture) signIn(t *testing.T, login string) (*browser, string) {
	t.Helper()
	b := newBrowser(t, f.gitea.URL)
	b.signInToGitea(login)
	resp, body := b.signInToPage(f.page)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	require.Equal(t, "/gitea-sessions", resp.Request.URL.Path)
	require.Contains(t, body, "signed in as <b>"+login+"</b>")
	return b, body
}

func TestGiteaSignInShowsWhatGiteaLetsThemRead(t *testing.T) {
	t.Parallel()
	f := newGiteaFixture(t)

	signedOut := newBrowser(t, f.gitea.URL)
	resp, body := signedOut.get(f.page)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Contains(t, body, "Sign in with Gitea")
	require.Contains(t, body, `href="/gitea-sessions/login?return=%2fgitea-sessions"`)

	alice, list := f.signIn(t, "alice")
	require.Contains(t, list, `href="/gitea-sessions/`+itoa(f.ofGT)+`"`)
	require.Contains(t, list, `href="/gitea-sessions/`+itoa(f.public)+`"`, "a public repository is readable")
	require.NotContains(t, list, `/`+itoa(f.ofGH)+`"`, "a GitHub session of the same name never shows here")
	require.Contains(t, list, f.gitea.URL+"root/secret/issues/7", "the issue links to Gitea")
	require.Contains(t, list, `action="/gitea-sessions/logout"`)
	resp, body = alice.get(f.page + "/" + itoa(f.ofGT))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, body, "GITEA-SECRET-REPLY")
	resp, body = alice.get(f.page + "/" + itoa(f.ofGH))
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.NotContains(t, body, "GITHUB-REPLY")

	bob, list := f.signIn(t, "bob")
	require.NotContains(t, list, `/`+itoa(f.ofGT)+`"`, "bob cannot read root/secret")
	require.Contains(t, list, `href="/gitea-sessions/`+itoa(f.public)+`"`)
	resp, body = bob.get(f.page + "/" + itoa(f.ofGT))
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Contains(t, body, "Gitea says you cannot read the repository of this session.")
	require.NotContains(t, body, "GITEA-SECRET-REPLY")

	// An operator of the Gitea page sees every Gitea session, and still no
	// GitHub one.
	_, list = f.signIn(t, "root")
	require.Contains(t, list, `href="/gitea-sessions/`+itoa(f.ofGT)+`"`)
	require.NotContains(t, list, `/`+itoa(f.ofGH)+`"`)

	// Signing out clears the page's cookie: the list asks to sign in again.
	resp, body = alice.post(f.page+"/logout", nil)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Contains(t, body, "Sign in with Gitea")
}

func TestGiteaWhoamiAndCanRead(t *testing.T) {
	t.Parallel()
	srv := giteaserver.Start(t)
	rootTok := srv.Token("root", "write:repository,write:user")
	alice := srv.User("alice", "read:user,read:repository")
	srv.API(rootTok, "POST", "/user/repos", map[string]any{"name": "secret", "private": true}, nil)
	g, err := newGiteaForge(srv.URL, http.DefaultClient)
	require.NoError(t, err)
	ctx := t.Context()

	login, err := g.whoami(ctx, alice)
	require.NoError(t, err)
	require.Equal(t, "alice", login)
	ok, err := g.canRead(ctx, alice, "root/secret")
	require.NoError(t, err)
	require.False(t, ok, "not a collaborator: Gitea answers 404")
	ok, err = g.canRead(ctx, alice, "root/nothing-here")
	require.NoError(t, err)
	require.False(t, ok)

	srv.API(rootTok, "PUT", "/repos/root/secret/collaborators/alice", map[string]any{"permission": "read"}, nil)
	ok, err = g.canRead(ctx, alice, "root/secret")
	require.NoError(t, err)
	require.True(t, ok)

	_, err = g.whoami(ctx, "not-a-token")
	require.ErrorIs(t, err, errRefused)
	_, err = g.canRead(ctx, "not-a-token", "root/secret")
	require.ErrorIs(t, err, errRefused)
	require.Equal(t, srv.URL+"root/secret/issues/3", g.issueURL("root", "secret", 3))
}

// recordAt writes a small real session of installation inst's
// owner/repo, issue 7, whose model replies reply.
func recordAt(t *testing.T, st *store.Store, inst int64, owner, repo, reply string) int64 {
	t.Helper()
	ctx := t.Context()
	r := session.Start(ctx, st, store.Session{InstallationID: inst, Owner: owner, Repo: repo, Issue: 7, Requester: "dana"},
		session.Options{})
	r.Begin(ctx, session.StageExplore, "explore")
	_, err := r.Model(replyModel{reply}).Chat(ctx, llm.Request{Role: llm.RoleExplorer, Messages: []llm.Message{
		{Role: llm.System, Content: "You are the explorer."}, {Role: llm.User, Content: "Issue #7"}}})
	require.NoError(t, err)
	r.Finish(ctx)
	return r.ID()
}

func TestOnePagesCookieDoesNotOpenOnAnother(t *testing.T) {
	t.Parallel()
	secret := []byte("a server secret of enough bytes")
	gh, err := newSealer(secret, "/sessions")
	require.NoError(t, err)
	gt, err := newSealer(secret, "/gitea-sessions")
	require.NoError(t, err)
	v, err := gh.seal(signInCookie, signIn{Login: "root", Token: "x"})
	require.NoError(t, err)
	var si signIn
	require.NoError(t, gh.open(signInCookie, v, &si))
	require.ErrorIs(t, gt.open(signInCookie, v, &si), errBadCookie, "a GitHub sign-in is no Gitea sign-in")
}

// GitHub's page beside a Gitea server's shows no Gitea session, to its
// operators neither, and sends a link to one on to the Gitea page.
func TestGitHubPageShowsOnlyGitHubSessions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *Options) { o.InstallationSign, o.Elsewhere = 1, "/gitea-sessions" })
	ofGitea := recordAt(t, f.st, -1, "acme", "web", "GITEA-REPLY")
	root := f.signIn(t, "root")
	_, body := f.do(t, http.MethodGet, "/sessions", root)
	require.Contains(t, body, `href="/sessions/`+itoa(f.web)+`"`)
	require.NotContains(t, body, `/`+itoa(ofGitea)+`"`)
	for _, c := range []*http.Cookie{root, nil} {
		resp, body := f.do(t, http.MethodGet, "/sessions/"+itoa(ofGitea), c)
		require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		require.Equal(t, "/gitea-sessions/"+itoa(ofGitea), resp.Header.Get("Location"))
		require.NotContains(t, body, "GITEA-REPLY")
	}
	resp, _ := f.do(t, http.MethodGet, "/sessions/"+itoa(f.web))
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "its own session: sign in")

	f = newFixture(t, func(o *Options) { o.InstallationSign = 1 })
	ofGitea = recordAt(t, f.st, -1, "acme", "web", "GITEA-REPLY")
	resp, body = f.do(t, http.MethodGet, "/sessions/"+itoa(ofGitea), f.signIn(t, "root"))
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "no Gitea page: no such session here")
	require.NotContains(t, body, "GITEA-REPLY")
}
