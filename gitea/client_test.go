package gitea_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/gitea"
	"github.com/issuesmith/issuesmith/gitea/giteatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewRefusesBadArguments(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"", "gitea.local", "ftp://gitea.local", "http://"} {
		_, err := gitea.New(base, "t", gitea.Options{})
		assert.Error(t, err, base)
	}
	_, err := gitea.New("http://gitea.local", "", gitea.Options{})
	assert.Error(t, err)
}

func TestVersionAndSelf(t *testing.T) {
	t.Parallel()
	srv, c, _, _ := setup(t, nil)
	v, err := c.Version(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "1.26.0", v)
	me, err := c.Self(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "issuesmith", me.Login)
	assert.NotZero(t, me.ID)
	assert.Equal(t, 2, len(srv.Requests()))
}

// Forgejo's version string is kept as it is, not parsed.
func TestForgejoVersionIsKept(t *testing.T) {
	t.Parallel()
	srv := giteatest.New(t, giteatest.Options{Version: "11.0.1+gitea-1.22.0"})
	c, err := gitea.New(srv.URL(), srv.AddToken("bot"), gitea.Options{})
	require.NoError(t, err)
	v, err := c.Version(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "11.0.1+gitea-1.22.0", v)
}

// A server under a sub-path: the API is under it.
func TestSubPath(t *testing.T) {
	t.Parallel()
	srv := giteatest.New(t, giteatest.Options{})
	proxy := http.NewServeMux()
	proxy.Handle("/gitea/", http.StripPrefix("/gitea", srv))
	front := startServer(t, proxy)
	c, err := gitea.New(front+"/gitea/", srv.AddToken("bot"), gitea.Options{})
	require.NoError(t, err)
	v, err := c.Version(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "1.26.0", v)
	assert.Equal(t, "/api/v1/version", srv.Requests()[0].Path)
}

func TestRepositoryAndRawFile(t *testing.T) {
	t.Parallel()
	srv, c, _, _ := setup(t, nil)
	srv.SetFile(owner, repo, "", ".gitea/issuesmith.yml", "version: 1\n")
	srv.SetFile(owner, repo, "feature/x", "dir with space/a.go", "package a\n")

	r, err := c.Repository(t.Context(), owner, repo)
	require.NoError(t, err)
	assert.Equal(t, "octo/hello", r.FullName)
	assert.Equal(t, "main", r.DefaultBranch)
	assert.Equal(t, "http://git.invalid/octo/hello.git", r.CloneURL)
	assert.Equal(t, gitea.Permissions{Admin: true, Push: true, Pull: true}, r.Permissions)

	b, err := c.RawFile(t.Context(), owner, repo, ".gitea/issuesmith.yml", "")
	require.NoError(t, err)
	assert.Equal(t, "version: 1\n", string(b))
	b, err = c.RawFile(t.Context(), owner, repo, "dir with space/a.go", "feature/x")
	require.NoError(t, err)
	assert.Equal(t, "package a\n", string(b))
	_, err = c.RawFile(t.Context(), owner, repo, "missing.txt", "")
	assert.ErrorIs(t, err, gitea.ErrNotFound)
	_, err = c.Repository(t.Context(), owner, "nope")
	assert.ErrorIs(t, err, gitea.ErrNotFound)
}

func TestRawFileTooLarge(t *testing.T) {
	t.Parallel()
	srv, c, _, _ := setup(t, func(o *gitea.Options) { o.MaxBody = 4 })
	srv.SetFile(owner, repo, "", "big", "12345")
	_, err := c.RawFile(t.Context(), owner, repo, "big", "")
	require.ErrorContains(t, err, "larger than 4 bytes")
}

func TestErrorKinds(t *testing.T) {
	t.Parallel()
	srv, c, token, w := setup(t, func(o *gitea.Options) { o.Transport.MaxRetries = 2 })
	const op = "GET /repos/{owner}/{repo}"

	// 5xx past the retries: Gitea's error, after three tries.
	srv.Inject(giteatest.Fault{Op: op, Status: http.StatusBadGateway, Times: 3, Body: `{"message":"bad gateway"}`})
	_, err := c.Repository(t.Context(), owner, repo)
	var ge *gitea.Error
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, http.StatusBadGateway, ge.Status)
	assert.Equal(t, "bad gateway", ge.Message)
	assert.Equal(t, "GET", ge.Method)
	assert.Equal(t, "/api/v1/repos/octo/hello", ge.Path)
	assert.Equal(t, 3, srv.Calls(op))
	assert.Equal(t, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, w.all())

	// A long 429: the transport's RateLimitError.
	srv.Inject(giteatest.RateLimit(op, 10*time.Minute, 1))
	_, err = c.Repository(t.Context(), owner, repo)
	rl, ok := ghapp.RateLimitOf(err, time.Now())
	require.True(t, ok, "got %v", err)
	assert.Equal(t, http.StatusTooManyRequests, rl.Status)

	// A short one is waited out.
	srv.Inject(giteatest.RateLimit(op, 2*time.Second, 1))
	_, err = c.Repository(t.Context(), owner, repo)
	require.NoError(t, err)
	assert.Equal(t, 2*time.Second, w.all()[len(w.all())-1])

	// A bad token: 401 is ErrForbidden.
	bad, err := gitea.New(srv.URL(), "not-"+token, gitea.Options{})
	require.NoError(t, err)
	_, err = bad.Self(t.Context())
	require.ErrorIs(t, err, gitea.ErrForbidden)
	assert.NotContains(t, err.Error(), token)
	assert.False(t, errors.Is(err, gitea.ErrNotFound))
}

// A token without a scope: Gitea's 403 names the scope, and the error
// carries it (bot setup shows it); the token never appears.
func TestMissingScope(t *testing.T) {
	t.Parallel()
	srv, _, _, _ := setup(t, nil)
	srv.AddIssue(owner, repo, giteatest.Issue{Title: "t", User: "alice"})
	token := srv.AddToken("issuesmith", "read:issue", "write:repository")
	c, err := gitea.New(srv.URL(), token, gitea.Options{})
	require.NoError(t, err)

	_, err = c.Issue(t.Context(), owner, repo, 1)
	require.NoError(t, err, "read:issue reads")
	_, err = c.CreateComment(t.Context(), owner, repo, 1, "hi")
	require.ErrorIs(t, err, gitea.ErrForbidden)
	assert.Contains(t, err.Error(), "token does not have at least one of required scope(s), required=[write:issue]")
	assert.NotContains(t, err.Error(), token)
	_, err = c.Self(t.Context())
	require.ErrorIs(t, err, gitea.ErrForbidden)
	assert.Contains(t, err.Error(), "required=[read:user]")
	assert.Empty(t, srv.Comments(owner, repo, 1))
}

// The token is sent only in its header: not in a URL, not in any error.
func TestTokenOnlyInTheHeader(t *testing.T) {
	t.Parallel()
	srv, c, token, _ := setup(t, func(o *gitea.Options) { o.Transport.MaxRetries = -1 })
	srv.Inject(giteatest.Fault{Op: "GET /user", Status: http.StatusInternalServerError, Body: "echo " + token})
	_, err := c.Self(t.Context())
	require.Error(t, err)
	assert.NotContains(t, err.Error(), token)
	assert.Contains(t, err.Error(), "echo [token]")
	for _, r := range srv.Requests() {
		assert.NotContains(t, r.Path, token)
	}
}

func startServer(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return strings.TrimSuffix(s.URL, "/")
}
