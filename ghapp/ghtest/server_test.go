package ghtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/internal/fakeapi"
)

// recorder is a testing.TB whose Errorf is recorded instead of failing, so
// the fake's own refusals can be checked.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.errs
	r.errs = nil
	return e
}

func jwtFor(t *testing.T, s *Server, iss string, life time.Duration) string {
	now := time.Now().Add(-30 * time.Second)
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.RegisteredClaims{Issuer: iss,
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(life))})
	signed, err := tok.SignedString(s.key)
	require.NoError(t, err)
	return signed
}

func do(t *testing.T, s *Server, method, path, auth, body string) (int, string) {
	req, err := http.NewRequest(method, s.srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// token gets an installation token the way ghinstallation does.
func getToken(t *testing.T, s *Server) string {
	code, body := do(t, s, "POST", "/app/installations/42/access_tokens", "Bearer "+jwtFor(t, s, "1", 2*time.Minute), "{}")
	require.Equal(t, http.StatusCreated, code, body)
	i := strings.Index(body, `"token":"`) + len(`"token":"`)
	return body[i : i+strings.IndexByte(body[i:], '"')]
}

func TestRequestsGitHubWouldRejectFailTheTest(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	s := New(rec, Options{})
	s.AddRepo(Repo{Owner: "o", Name: "r"})
	s.AddRepo(Repo{Owner: "o", Name: "elsewhere", Installation: 7})
	n := s.AddIssue("o", "r", Issue{Title: "t", User: "alice"})
	tok := "token " + getToken(t, s)
	require.Empty(t, rec.take())

	for _, tc := range []struct {
		name, method, path, auth, body string
		status                         int
		complaint                      string
	}{
		{"unknown operation", "GET", "/repos/o/r/teleport", tok, "", 404, "not an operation"},
		{"method the operation lacks", "PUT", "/repos/o/r/issues/1/comments", tok, `{"body":"x"}`, 404, "not an operation"},
		{"missing required property", "POST", fmt.Sprintf("/repos/o/r/issues/%d/comments", n), tok, `{"text":"x"}`, 422, "would be rejected"},
		{"property GitHub does not define", "POST", "/repos/o/r/pulls", tok, `{"title":"t","head":"b","base":"main","drafty":true}`, 422, "does not define: drafty"},
		{"enum value", "POST", fmt.Sprintf("/repos/o/r/issues/%d/reactions", n), tok, `{"content":"party"}`, 422, "would be rejected"},
		{"query enum", "GET", "/repos/o/r/pulls?state=merged", tok, "", 422, "would be rejected"},
		{"wrong type", "GET", "/repos/o/r/issues/abc", tok, "", 422, "would be rejected"},
		{"no credentials", "GET", "/repos/o/r", "", "", 401, "without an installation token"},
		{"unknown token", "GET", "/repos/o/r", "token ghs_forged", "", 401, "unknown or expired"},
		{"repository of another installation", "GET", "/repos/o/elsewhere", tok, "", 404, "has no access"},
		{"token on an App endpoint", "GET", "/app", tok, "", 401, "without an App JWT"},
		{"JWT from another App", "GET", "/app", "Bearer " + jwtFor(t, s, "2", time.Minute), "", 401, "bad App JWT"},
		{"JWT living too long", "GET", "/app", "Bearer " + jwtFor(t, s, "1", time.Hour), "", 401, "bad App JWT"},
		{"comment over GitHub's 65536 characters", "POST", fmt.Sprintf("/repos/o/r/issues/%d/comments", n), tok, `{"body":"` + strings.Repeat("é", MaxBody+1) + `"}`, 422, "body is too long"},
		{"pull request body over the limit", "POST", "/repos/o/r/pulls", tok, `{"title":"t","head":"b","base":"main","body":"` + strings.Repeat("x", MaxBody+1) + `"}`, 422, "body is too long"},
		{"bot editing a user's comment", "PATCH", fmt.Sprintf("/repos/o/r/issues/comments/%d", s.AddComment("o", "r", n, "alice", "hi")), tok, `{"body":"x"}`, 403, "written by alice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _ := do(t, s, tc.method, tc.path, tc.auth, tc.body)
			assert.Equal(t, tc.status, code)
			errs := rec.take()
			require.Len(t, errs, 1, "the fake fails the test exactly once")
			assert.Contains(t, errs[0], tc.complaint)
		})
	}

	// Valid requests pass without complaint.
	code, body := do(t, s, "POST", fmt.Sprintf("/repos/o/r/issues/%d/comments", n), tok, `{"body":"fine"}`)
	assert.Equal(t, http.StatusCreated, code, body)
	code, body = do(t, s, "POST", fmt.Sprintf("/repos/o/r/issues/%d/comments", n), tok, `{"body":"`+strings.Repeat("é", MaxBody)+`"}`)
	assert.Equal(t, http.StatusCreated, code, body) // the limit counts characters, not bytes
	code, _ = do(t, s, "GET", "/app", "Bearer "+jwtFor(t, s, "1", 2*time.Minute), "")
	assert.Equal(t, http.StatusOK, code)
	assert.Empty(t, rec.take())
}

func TestExpiredTokenIsRefused(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	clock := newClock()
	s := New(rec, Options{TokenTTL: time.Minute, Now: clock.now})
	s.AddRepo(Repo{Owner: "o", Name: "r"})
	tok := getToken(t, s)
	clock.add(time.Minute - time.Nanosecond)
	code, _ := do(t, s, "GET", "/repos/o/r", "token "+tok, "")
	assert.Equal(t, http.StatusOK, code, "valid until its last moment")
	clock.add(time.Nanosecond)
	code, _ = do(t, s, "GET", "/repos/o/r", "token "+tok, "")
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Len(t, rec.take(), 1)
}

// The tokens the fake issued can be observed and checked the way GitHub
// checks git's password: issued, unexpired, for the repository's installation.
func TestIssuedTokensAndValidToken(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := New(t, Options{TokenTTL: time.Hour, Now: clock.now})
	s.AddRepo(Repo{Owner: "o", Name: "r"})
	s.AddRepo(Repo{Owner: "o", Name: "elsewhere", Installation: 7})
	require.Empty(t, s.IssuedTokens())
	a, b := getToken(t, s), getToken(t, s)
	require.NotEqual(t, a, b)
	want := []string{a, b}
	if b < a {
		want = []string{b, a}
	}
	require.Equal(t, want, s.IssuedTokens())
	require.True(t, s.ValidToken("o", "r", a))
	require.False(t, s.ValidToken("o", "elsewhere", a), "another installation's repository")
	require.False(t, s.ValidToken("o", "missing", a))
	require.False(t, s.ValidToken("o", "r", "ghs_forged"))
	clock.add(time.Hour)
	require.False(t, s.ValidToken("o", "r", a), "expired")
	require.Len(t, s.IssuedTokens(), 2, "expired tokens are still listed")
}

func TestFaultsAndState(t *testing.T) {
	t.Parallel()
	s := New(t, Options{})
	s.AddRepo(Repo{Owner: "o", Name: "r", CloneURL: "http://git.test/o/r.git"})
	tok := "token " + getToken(t, s)
	s.Inject(Fault{Op: "GET /repos/{owner}/{repo}", Status: 502, Times: 2})
	for _, want := range []int{502, 502, 200} {
		code, _ := do(t, s, "GET", "/repos/o/r", tok, "")
		assert.Equal(t, want, code)
	}
	assert.Equal(t, 3, s.Calls("GET /repos/{owner}/{repo}"))
	_, body := do(t, s, "GET", "/repos/o/r", tok, "")
	assert.Contains(t, body, `"clone_url":"http://git.test/o/r.git"`)

	// Nested content paths keep their slashes.
	s.SetFile("o", "r", "", "a/b/c.txt", []byte("hello"))
	code, body := do(t, s, "GET", "/repos/o/r/contents/a/b/c.txt", tok, "")
	assert.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, `"path":"a/b/c.txt"`)

	// Pagination: 35 comments, 30 per page by default.
	n := s.AddIssue("o", "r", Issue{Title: "t", User: "alice"})
	for i := range 35 {
		s.AddComment("o", "r", n, "alice", fmt.Sprint(i))
	}
	req, _ := http.NewRequest("GET", fmt.Sprintf("%s/repos/o/r/issues/%d/comments", s.srv.URL, n), nil)
	req.Header.Set("Authorization", tok)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 30, bytes.Count(b, []byte(`"node_id":"IC_`)))
	assert.Contains(t, resp.Header.Get("Link"), `rel="next"`)
}

// TestAnswersHaveGitHubsShape: the fake's answers are completed from the
// description and checked against it; a wrongly typed field is caught.
func TestAnswersHaveGitHubsShape(t *testing.T) {
	t.Parallel()
	s := New(t, Options{})
	req, err := http.NewRequest("GET", s.srv.URL+"/repos/o/r", nil)
	require.NoError(t, err)
	route, params, err := s.rt.FindRoute(req)
	require.NoError(t, err)
	schema := responseSchema(route, 200)
	require.NotNil(t, schema)
	check := func(v any) error {
		b, err := json.Marshal(complete(schema, roundTrip(v)))
		require.NoError(t, err)
		return fakeapi.CheckResponse(t.Context(), route, params, req, 200,
			http.Header{"Content-Type": {"application/json"}}, b)
	}
	assert.NoError(t, check(obj{"id": 1, "name": "r", "full_name": "o/r", "default_branch": "main"}))
	assert.Error(t, check(obj{"id": "one", "name": "r"}), "id must be an integer")
	assert.Error(t, check(obj{"id": 1, "private": "no"}), "private must be a boolean")
}

// clock is a test's clock for the fake's tokens: it moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
