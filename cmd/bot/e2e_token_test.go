package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// tokenGate puts the end-to-end test's git server behind the fake GitHub's
// installation tokens: every token the fake issues is recorded on its way
// to the bot, and git requests pass only with one of them as the
// x-access-token password — so a push succeeds only when the bot handed
// git exactly the installation token GitHub gave it.
type tokenGate struct {
	mu       sync.Mutex
	tokens   map[string]bool
	granted  atomic.Int64 // git requests with an issued token
	refused  atomic.Int64 // git requests without one
	pushes   atomic.Int64 // granted git-receive-pack POSTs
	ghURL    string       // the bot's GitHub: the fake behind the recorder
	cloneURL func(repo string) string
}

var accessTokensPath = regexp.MustCompile(`^/app/installations/\d+/access_tokens$`)

// newTokenGate wraps the fake GitHub (gh, serving at ghURL) and the git
// server (gitURL).
func newTokenGate(t *testing.T, gh http.Handler, ghURL, gitURL string) *tokenGate {
	g := &tokenGate{tokens: map[string]bool{}}
	fake, err := url.Parse(ghURL)
	require.NoError(t, err)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The fake routes by its own address (its OpenAPI servers entry).
		r.Host, r.URL.Scheme, r.URL.Host = fake.Host, fake.Scheme, fake.Host
		if !accessTokensPath.MatchString(r.URL.Path) {
			gh.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		gh.ServeHTTP(rec, r)
		var tok struct{ Token string }
		if rec.Code == http.StatusCreated && json.Unmarshal(rec.Body.Bytes(), &tok) == nil && tok.Token != "" {
			g.mu.Lock()
			g.tokens[tok.Token] = true
			g.mu.Unlock()
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(api.Close)
	g.ghURL = api.URL + "/"
	target, err := url.Parse(gitURL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	git := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		g.mu.Lock()
		issued := ok && user == "x-access-token" && g.tokens[pass]
		g.mu.Unlock()
		if !issued {
			g.refused.Add(1)
			w.Header().Set("WWW-Authenticate", `Basic realm="github"`)
			http.Error(w, "an installation token is required", http.StatusUnauthorized)
			return
		}
		g.granted.Add(1)
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-receive-pack") {
			g.pushes.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(git.Close)
	g.cloneURL = func(repo string) string { return git.URL + "/" + repo + ".git" }
	return g
}

// issued returns the tokens the fake GitHub handed out so far.
func (g *tokenGate) issued() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for tok := range g.tokens {
		out = append(out, tok)
	}
	return out
}

// assertTokensNowhere checks that no issued token (raw or in the Basic
// form git sends) appears in the server's logs, in any comment, review
// comment or PR body on the fake GitHub, or in any file the server stored
// (git remotes and config of the clone cache and worktrees, the database).
func (e *e2e) assertTokensNowhere(logs string, stored ...string) {
	e.t.Helper()
	tokens := e.gate.issued()
	require.NotEmpty(e.t, tokens, "the fake GitHub issued no installation token")
	var texts []string
	for _, c := range e.gh.Comments(e2eOwner, e2eRepo, e.issue) {
		texts = append(texts, c.Body)
	}
	for _, pr := range e.gh.PullRequests(e2eOwner, e2eRepo) {
		texts = append(texts, pr.Body)
		for _, c := range e.gh.Comments(e2eOwner, e2eRepo, pr.Number) {
			texts = append(texts, c.Body)
		}
		for _, c := range e.gh.ReviewComments(e2eOwner, e2eRepo, pr.Number) {
			texts = append(texts, c.Body)
		}
	}
	for _, tok := range tokens {
		basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + tok))
		for _, secret := range []string{tok, basic} {
			require.NotContains(e.t, logs, secret, "a token in the server's logs")
			for _, s := range texts {
				require.NotContains(e.t, s, secret, "a token in a comment or PR body")
			}
			for _, root := range stored {
				filesContaining(e.t, root, secret)
			}
		}
	}
}

// filesContaining fails the test for every file under root holding secret.
func filesContaining(t *testing.T, root, secret string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		if err != nil {
			return err
		}
		files++
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("a token is stored in %s", p)
		}
		return nil
	})
	require.NoError(t, err)
	require.Positive(t, files, "nothing stored under %s", root)
}
