package gittest

import (
	"crypto/subtle"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/issuesmith/issuesmith/internal/tb"
)

// Server is a git smart-HTTP server over bare repositories in a temporary
// directory. Repository "owner/name" is served at URL()+"/owner/name.git".
type Server struct {
	root   string
	token  string
	accept func(token string) bool
	// repoAccept is WithRepoTokenCheck's predicate (repository, token).
	repoAccept func(repo, token string) bool
	srv        *httptest.Server

	requests     atomic.Int64
	authFailures atomic.Int64
	pushes       atomic.Int64
}

// Option configures a Server.
type Option func(*Server)

// WithToken makes the server require HTTP basic auth with user
// "x-access-token" and this password on every request; other credentials get
// 401 (none given) or 403 (wrong ones).
func WithToken(token string) Option { return func(s *Server) { s.token = token } }

// WithTokenCheck is WithToken for a set of tokens that changes while the
// test runs (a fake GitHub's installation tokens): a request passes only
// with user "x-access-token" and a password accept reports true for. It
// replaces WithToken; accept may be called from several goroutines.
func WithTokenCheck(accept func(token string) bool) Option {
	return func(s *Server) { s.accept = accept }
}

// WithRepoTokenCheck is WithTokenCheck per repository: accept gets the
// repository asked for ("owner/name") and the password, so a token good for
// one repository (a fork) is refused on another (its parent), as GitHub's
// installation tokens are.
func WithRepoTokenCheck(accept func(repo, token string) bool) Option {
	return func(s *Server) { s.repoAccept = accept }
}

// NewServer starts a server that is closed when the test ends. It skips the
// test when git or git-http-backend is missing.
func NewServer(t tb.TB, opts ...Option) *Server {
	t.Helper()
	backend := httpBackend(t)
	s := &Server{root: t.TempDir()}
	for _, o := range opts {
		o(s)
	}
	h := &cgi.Handler{
		Path: backend,
		Root: "/",
		Env: []string{
			"GIT_PROJECT_ROOT=" + s.root,
			"GIT_HTTP_EXPORT_ALL=1",
			"GIT_CONFIG_NOSYSTEM=1",
			"HOME=" + s.root,
		},
	}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		if !s.authorized(w, r) {
			s.authFailures.Add(1)
			return
		}
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-receive-pack") {
			s.pushes.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// authorized checks the token, answering 401/403 itself when it is wrong.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.token == "" && s.accept == nil && s.repoAccept == nil {
		return true
	}
	user, pass, ok := r.BasicAuth()
	if !ok {
		w.Header().Set("WWW-Authenticate", `Basic realm="gittest"`)
		http.Error(w, "authentication required", http.StatusUnauthorized)
		return false
	}
	var good bool
	switch {
	case s.repoAccept != nil:
		name, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), ".git/")
		good = s.repoAccept(name, pass)
	case s.accept != nil:
		good = s.accept(pass)
	default:
		good = subtle.ConstantTimeCompare([]byte(pass), []byte(s.token)) == 1
	}
	if user != "x-access-token" || !good {
		http.Error(w, "invalid credentials", http.StatusForbidden)
		return false
	}
	return true
}

// URL returns the server's base URL (no trailing slash).
func (s *Server) URL() string { return s.srv.URL }

// RepoURL returns the clone URL of repository name ("owner/repo").
func (s *Server) RepoURL(name string) string { return s.srv.URL + "/" + name + ".git" }

// Requests counts the HTTP requests received so far.
func (s *Server) Requests() int64 { return s.requests.Load() }

// AuthFailures counts the requests refused for missing or wrong credentials.
func (s *Server) AuthFailures() int64 { return s.authFailures.Load() }

// Pushes counts the authorized push requests (POST git-receive-pack) so
// far, whether or not the push was accepted.
func (s *Server) Pushes() int64 { return s.pushes.Load() }

// Dir returns the bare repository's directory on disk.
func (s *Server) Dir(name string) string {
	return filepath.Join(s.root, filepath.FromSlash(name)+".git")
}

// httpBackend finds git-http-backend or skips the test.
func httpBackend(t tb.TB) string {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skipf("git is not installed: %v", err)
	}
	p := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("git-http-backend not found: %v", err)
	}
	return p
}
