package giteatest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/internal/fakeapi"
)

// recorder is a test that keeps the fake's failures instead of failing.
type recorder struct {
	*testing.T
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

func send(t *testing.T, srv *Server, token, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL()+"/api/v1"+path, strings.NewReader(body))
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "token "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// The fake fails the test that owns it for a request Gitea's description
// does not allow.
func TestRequestsBreakingTheDescriptionFail(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, method, path, body, want string
		status                         int
	}{
		{"unknown body property", "POST", "/repos/o/r/issues/1/comments", `{"body":"x","bogus":1}`,
			"properties the operation does not define: bogus", 422},
		{"wrong body type", "POST", "/repos/o/r/issues/1/comments", `{"body":5}`, "would be rejected by Gitea", 422},
		{"missing required field", "POST", "/repos/o/r/hooks", `{"type":"gitea"}`, "would be rejected by Gitea", 422},
		{"bad enum", "POST", "/repos/o/r/hooks", `{"type":"github","config":{"url":"u","content_type":"json"}}`,
			"would be rejected by Gitea", 422},
		{"non-integer index", "GET", "/repos/o/r/issues/abc", "", "would be rejected by Gitea", 422},
		{"unknown operation", "GET", "/repos/o/r/check-runs", "", "not an operation of Gitea's API", 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{T: t}
			srv := New(rec, Options{})
			srv.AddRepo(Repo{Owner: "o", Name: "r"})
			srv.AddIssue("o", "r", Issue{Title: "t", User: "alice"})
			token := srv.AddToken("o", "all")
			status, _ := send(t, srv, token, tc.method, tc.path, tc.body)
			assert.Equal(t, tc.status, status)
			errs := rec.got()
			require.Len(t, errs, 1)
			assert.Contains(t, errs[0], tc.want)
			assert.Empty(t, srv.Comments("o", "r", 1))
		})
	}
}

// The fake's own answers are checked too: a shape Gitea does not send
// would be refused.
func TestResponsesAreChecked(t *testing.T) {
	t.Parallel()
	rt, err := newRouter("/api/v1")
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodGet, "/api/v1/repos/o/r/issues/1", nil)
	route, params, err := rt.FindRoute(req)
	require.NoError(t, err)
	require.NoError(t, fakeapi.CheckResponse(t.Context(), route, params, req, 200, jsonHeader, []byte(`{"id":1,"number":1,"title":"t"}`)))
	err = fakeapi.CheckResponse(t.Context(), route, params, req, 200, jsonHeader, []byte(`{"id":"one","number":1}`))
	require.Error(t, err)
	err = fakeapi.CheckResponse(t.Context(), route, params, req, 200, jsonHeader, []byte(`{"id":1,"closed_at":null}`))
	require.Error(t, err, "Gitea's description has no nullable fields: the fake leaves nil ones out")
}

func TestTokensAndScopes(t *testing.T) {
	t.Parallel()
	srv := New(t, Options{})
	srv.AddRepo(Repo{Owner: "o", Name: "r", Private: true})
	srv.AddIssue("o", "r", Issue{Title: "t", User: "o"})
	owner := srv.AddToken("o", "read:repository", "write:issue")
	other := srv.AddToken("mallory", "all")

	status, body := send(t, srv, "", "POST", "/repos/o/r/issues/1/comments", `{"body":"x"}`)
	assert.Equal(t, 401, status, body)
	status, _ = send(t, srv, "wrong", "GET", "/version", "")
	assert.Equal(t, 401, status)
	status, _ = send(t, srv, "", "GET", "/version", "")
	assert.Equal(t, 200, status, "the version needs no token")
	status, body = send(t, srv, owner, "POST", "/repos/o/r/statuses/abc", `{"state":"success"}`)
	assert.Equal(t, 403, status)
	assert.Contains(t, body, "token does not have at least one of required scope(s), required=[write:repository], token scope=read:repository,write:issue")
	status, _ = send(t, srv, owner, "GET", "/repos/o/r", "")
	assert.Equal(t, 200, status, "write implies read, read:repository reads")
	status, _ = send(t, srv, other, "GET", "/repos/o/r/issues/1", "")
	assert.Equal(t, 404, status, "a private repository is hidden from others")
	assert.Equal(t, "mallory", srv.Requests()[len(srv.Requests())-1].User)
}

func TestFaultsAndWait(t *testing.T) {
	t.Parallel()
	srv := New(t, Options{})
	srv.AddRepo(Repo{Owner: "o", Name: "r"})
	srv.AddIssue("o", "r", Issue{Title: "t", User: "o"})
	token := srv.AddToken("o", "all")
	const op = "POST /repos/{owner}/{repo}/issues/{index}/comments"
	srv.Inject(Fault{Op: op, Status: 503, Times: 2})
	srv.Inject(RateLimit(op, 30*time.Second, 1))

	done := make(chan error, 1)
	go func() { // the client, as the code under test would be
		for range 4 {
			req, err := http.NewRequestWithContext(t.Context(), "POST", srv.URL()+"/api/v1/repos/o/r/issues/1/comments",
				strings.NewReader(`{"body":"hi"}`))
			if err != nil {
				done <- err
				return
			}
			req.Header.Set("Authorization", "token "+token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- err
				return
			}
			resp.Body.Close()
		}
		done <- nil
	}()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	require.True(t, srv.Wait(ctx, func() bool { return len(srv.Comments("o", "r", 1)) == 1 }))
	require.NoError(t, <-done)
	var statuses []int
	for _, r := range srv.Requests() {
		statuses = append(statuses, r.Status)
	}
	assert.Equal(t, []int{503, 503, 429, 201}, statuses)

	ended, stop := context.WithCancel(t.Context())
	stop()
	assert.False(t, srv.Wait(ended, func() bool { return false }))
}

func TestDeliverSignsAsGitea(t *testing.T) {
	t.Parallel()
	got := make(chan *http.Request, 2)
	bodies := make(chan []byte, 2)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- b
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, "queued")
	}))
	t.Cleanup(hook.Close)
	payload := []byte(`{"action":"label_updated","number":1}`)

	status, body, err := Deliver(t.Context(), hook.URL, "s3cret", Delivery{Event: "issues", EventType: "issue_label", Payload: payload})
	require.NoError(t, err)
	assert.Equal(t, http.StatusAccepted, status)
	assert.Equal(t, "queued", string(body))
	r := <-got
	assert.Equal(t, payload, <-bodies)
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write(payload)
	sig := hex.EncodeToString(mac.Sum(nil))
	assert.Equal(t, sig, r.Header.Get("X-Gitea-Signature"))
	assert.Equal(t, "sha256="+sig, r.Header.Get("X-Hub-Signature-256"))
	assert.Equal(t, "issues", r.Header.Get("X-Gitea-Event"))
	assert.Equal(t, "issue_label", r.Header.Get("X-Gitea-Event-Type"))
	assert.Equal(t, "issues", r.Header.Get("X-GitHub-Event"))
	assert.Equal(t, "issue_label", r.Header.Get("X-GitHub-Event-Type"))
	id := r.Header.Get("X-Gitea-Delivery")
	assert.Len(t, id, 36)
	assert.Equal(t, id, r.Header.Get("X-GitHub-Delivery"))
	assert.Empty(t, r.Header.Get("X-Forgejo-Event"))

	_, _, err = Deliver(t.Context(), hook.URL, "s3cret", Delivery{Event: "issue_comment", EventType: "issue_comment",
		Payload: payload, ID: "d-1", Forgejo: true})
	require.NoError(t, err)
	r = <-got
	<-bodies
	assert.Equal(t, "issue_comment", r.Header.Get("X-Forgejo-Event"))
	assert.Equal(t, "d-1", r.Header.Get("X-Forgejo-Delivery"))
	assert.Equal(t, sig, r.Header.Get("X-Forgejo-Signature"))
	assert.Equal(t, "d-1", r.Header.Get("X-Gitea-Delivery"), "Forgejo sends Gitea's headers too")
}

// The committed description is what testdata/prune makes of Gitea's
// source in the module cache (skipped when the source is not there).
func TestDescriptionIsGenerated(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	require.NoError(t, err)
	src := filepath.Join(strings.TrimSpace(string(out)), "code.gitea.io", "gitea@v1.26.0")
	if _, err := os.Stat(filepath.Join(src, "templates", "swagger", "v1_json.tmpl")); err != nil {
		t.Skipf("Gitea's source is not in the module cache: %v", err)
	}
	dest := filepath.Join(t.TempDir(), "pruned.json")
	cmd := exec.CommandContext(t.Context(), "go", "run", "./testdata/prune", src, dest)
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, string(b))
	made, err := os.ReadFile(dest)
	require.NoError(t, err)
	assert.Equal(t, string(description), string(made), "run go generate in gitea/giteatest")
}
