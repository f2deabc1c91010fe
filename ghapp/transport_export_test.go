package ghapp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scripted is a plain HTTP server that sends none of GitHub's rate-limit
// headers (as Gitea answers): each request gets the next of its answers,
// then 200. It keeps the bodies it received.
type scripted struct {
	mu      sync.Mutex
	answers []answer
	bodies  []string
}

type answer struct {
	status int
	header http.Header
	body   string
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(b))
	a := answer{status: http.StatusOK, body: `{}`}
	if len(s.answers) > 0 {
		a, s.answers = s.answers[0], s.answers[1:]
	}
	s.mu.Unlock()
	for k, v := range a.header {
		w.Header()[k] = v
	}
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}

func (s *scripted) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// exportSetup serves answers and returns a client over NewTransport whose
// waits are recorded instead of slept.
func exportSetup(t *testing.T, o TransportOptions, answers ...answer) (*scripted, string, *http.Client, *sleeps) {
	t.Helper()
	s := &scripted{answers: answers}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	sl := &sleeps{now: time.Now()}
	o.Sleep, o.Now = sl.sleep, sl.clock
	if o.Backoff == 0 {
		o.Backoff = 100 * time.Millisecond
	}
	return s, srv.URL, &http.Client{Transport: NewTransport(nil, o)}, sl
}

func post(t *testing.T, c *http.Client, url, body string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	resp, err := c.Do(req)
	if err == nil {
		t.Cleanup(func() { resp.Body.Close() })
	}
	return resp, err
}

func TestNewTransportRetriesServerErrorsWithTheBody(t *testing.T) {
	t.Parallel()
	s, url, c, sl := exportSetup(t, TransportOptions{WriteInterval: -1},
		answer{status: http.StatusBadGateway}, answer{status: http.StatusServiceUnavailable})
	resp, err := post(t, c, url+"/api/v1/repos/o/r/issues/1/comments", `{"body":"hi"}`)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, []string{`{"body":"hi"}`, `{"body":"hi"}`, `{"body":"hi"}`}, s.got())
	assert.Equal(t, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, sl.got())
}

func TestNewTransportWaitsOutShortRateLimits(t *testing.T) {
	t.Parallel()
	_, url, c, sl := exportSetup(t, TransportOptions{WriteInterval: -1},
		answer{status: http.StatusTooManyRequests, header: http.Header{"Retry-After": {"3"}}})
	resp, err := post(t, c, url+"/x", `{}`)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, []time.Duration{3 * time.Second}, sl.got())
}

func TestNewTransportReturnsLongRateLimits(t *testing.T) {
	t.Parallel()
	s, url, c, sl := exportSetup(t, TransportOptions{WriteInterval: -1},
		answer{status: http.StatusTooManyRequests, header: http.Header{"Retry-After": {"600"}}, body: `{"message":"slow down"}`})
	start := sl.clock()
	_, err := post(t, c, url+"/x", `{}`)
	rl, ok := RateLimitOf(err, start)
	require.True(t, ok, "got %v", err)
	assert.Equal(t, http.StatusTooManyRequests, rl.Status)
	assert.Equal(t, "slow down", rl.Message)
	assert.WithinDuration(t, start.Add(10*time.Minute), rl.Until, time.Second)
	assert.Len(t, s.got(), 1)
	assert.Empty(t, sl.got(), "a wait past MaxWait is the caller's")
}

// A 403 without any rate-limit signal (Gitea's missing-scope answer) is
// the server's answer, read by the client, not retried.
func TestNewTransportPassesRefusals(t *testing.T) {
	t.Parallel()
	msg := `{"message":"token does not have at least one of required scope(s), required=[write:issue]"}`
	s, url, c, _ := exportSetup(t, TransportOptions{WriteInterval: -1}, answer{status: http.StatusForbidden, body: msg})
	resp, err := post(t, c, url+"/x", `{}`)
	require.NoError(t, err)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.JSONEq(t, msg, string(b))
	assert.Len(t, s.got(), 1)
}

// Writes are spaced by WriteInterval; reads are not, and nothing is
// held back for want of X-RateLimit headers (no installation pacing).
func TestNewTransportSpacesWritesOnly(t *testing.T) {
	t.Parallel()
	_, url, c, sl := exportSetup(t, TransportOptions{WriteInterval: time.Second})
	for range 3 {
		_, err := post(t, c, url+"/x", `{}`)
		require.NoError(t, err)
	}
	for range 3 {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url+"/y", nil)
		require.NoError(t, err)
		resp, err := c.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
	}
	assert.Equal(t, []time.Duration{time.Second, time.Second}, sl.got())
}
