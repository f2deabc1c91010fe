package ghapp

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refusedForLimit counts the fake's answers that were GitHub refusing for
// a rate limit: pacing must keep it at zero.
func refusedForLimit(srv *ghtest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Status == http.StatusForbidden || r.Status == http.StatusTooManyRequests {
			n++
		}
	}
	return n
}

// TestPacingHoldsBackAtTheReserve: with the installation's primary limit
// (5,000, GitHub's headers on every answer) down to a few requests above
// its reserve (100), requests go until the reserve is reached and are then
// held back unsent as a *RateLimitError until the reset; reserved requests
// (WithReserve) use the reserve down to the last request and are then held
// too; GitHub never refuses one; after the reset everything goes again.
func TestPacingHoldsBackAtTheReserve(t *testing.T) {
	t.Parallel()
	srv, c, sl := setup(t, nil)
	srv.SetPermission(owner, repo, "alice", "write")
	reset := time.Now().Add(10 * time.Minute)
	srv.SetRateLimit(srv.Installation(), 5000, Reserve(5000)+3, reset)
	require.Equal(t, 100, Reserve(5000))

	sent := 0
	var held *RateLimitError
	for range 10 {
		_, err := c.CanWrite(t.Context(), owner, repo, "alice")
		if err != nil {
			require.ErrorAs(t, err, &held)
			break
		}
		sent++
	}
	require.NotNil(t, held, "held back at the reserve")
	assert.Equal(t, 3, sent, "sent until the reserve")
	assert.Equal(t, 3, srv.Calls(permOp), "the held request was not sent")
	assert.True(t, held.Held)
	assert.Equal(t, reset.Truncate(time.Second).Add(time.Second), held.Until)
	assert.Contains(t, held.Error(), "nearly spent")
	assert.Contains(t, held.Error(), "100 of the installation's 5000")
	got, ok := RateLimitOf(errOf(c.CanWrite(t.Context(), owner, repo, "alice")), sl.clock())
	require.True(t, ok, "held again, in the one shape")
	assert.True(t, got.Held)

	ctx := WithReserve(t.Context())
	n := srv.AddIssue(owner, repo, ghtest.Issue{Title: "t", User: "alice"})
	reservedSent := 0
	for range 2 * Reserve(5000) {
		if _, err := c.CreateComment(ctx, owner, repo, n, "waiting for GitHub's rate limit"); err != nil {
			// go-github, having seen remaining 0, refuses by itself first.
			held, ok = RateLimitOf(err, sl.clock())
			require.True(t, ok, "%v", err)
			break
		}
		reservedSent++
	}
	assert.Equal(t, Reserve(5000), reservedSent, "reserved requests use the whole reserve")
	assert.Equal(t, Reserve(5000), srv.Calls("POST /repos/{owner}/{repo}/issues/{issue_number}/comments"))
	assert.Zero(t, refusedForLimit(srv), "GitHub never refused a request")
	assert.Empty(t, sl.got(), "nothing sat out: the reset is far")

	// The reset: GitHub starts a new window, the clock passes the old one.
	srv.SetRateLimit(srv.Installation(), 5000, 5000, time.Now().Add(time.Hour))
	sl.mu.Lock()
	sl.now = held.Until
	sl.mu.Unlock()
	c, e := c.app.Client(t.Context(), srv.Installation()) // go-github remembers the spent limit per client
	require.NoError(t, e)
	ok, e = c.CanWrite(t.Context(), owner, repo, "alice")
	require.NoError(t, e)
	assert.True(t, ok)
}

// errOf is a call's error.
func errOf(_ bool, e error) error { return e }

// TestPacingHoldsConcurrentRequests: requests in flight count before
// GitHub's answers do, so many jobs of one installation at once never send
// more than the requests above the reserve.
func TestPacingHoldsConcurrentRequests(t *testing.T) {
	t.Parallel()
	srv, c, _ := setup(t, nil)
	srv.SetPermission(owner, repo, "alice", "write")
	srv.SetRateLimit(srv.Installation(), 5000, Reserve(5000)+10, time.Now().Add(10*time.Minute))
	_, e := c.CanWrite(t.Context(), owner, repo, "alice") // learns the window: 9 above the reserve
	require.NoError(t, e)
	var sent, held atomic.Int32
	var wg sync.WaitGroup
	for range 30 {
		wg.Go(func() {
			_, e := c.CanWrite(t.Context(), owner, repo, "alice")
			if e == nil {
				sent.Add(1)
				return
			}
			var rl *RateLimitError
			if assert.ErrorAs(t, e, &rl) {
				held.Add(1)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(9), sent.Load())
	assert.Equal(t, int32(21), held.Load())
	assert.Equal(t, 10, srv.Calls(permOp))
}

// TestPacingAfterASpentLimit: GitHub's answer that the limit is spent
// (remaining 0) holds back every later request, reserved or not, until
// the reset instead of asking again; a short wait is sat out; the App's
// token requests are never held.
func TestPacingAfterASpentLimit(t *testing.T) {
	t.Parallel()
	srv, c, sl := setup(t, nil)
	srv.SetPermission(owner, repo, "alice", "write")
	srv.Inject(srv.PrimaryLimit(ghtest.AnyOp, http.StatusTooManyRequests, time.Now().Add(10*time.Minute), 1))
	_, e := c.CanWrite(t.Context(), owner, repo, "alice")
	var rl *RateLimitError
	require.ErrorAs(t, e, &rl)
	require.False(t, rl.Held, "GitHub's own answer")
	_, e = c.CanWrite(WithReserve(t.Context()), owner, repo, "alice")
	require.ErrorAs(t, e, &rl)
	assert.True(t, rl.Held)
	assert.Equal(t, 1, srv.Calls(permOp), "not asked again before the reset")

	// Five seconds before the reset (within MaxWait): sat out, then sent.
	sl.mu.Lock()
	sl.now = rl.Until.Add(-5 * time.Second)
	sl.mu.Unlock()
	ok, e := c.CanWrite(t.Context(), owner, repo, "alice")
	require.NoError(t, e)
	assert.True(t, ok)
	assert.Equal(t, []time.Duration{5 * time.Second}, sl.got())
	assert.Equal(t, 2, srv.Calls(permOp))
}

// TestPacingLeavesTokenRequestsAlone: the installation's token is the
// App's request, under the App's own limit: it is fetched while the
// installation's requests are held.
func TestPacingLeavesTokenRequestsAlone(t *testing.T) {
	t.Parallel()
	srv := ghtest.New(t, ghtest.Options{TokenTTL: 50 * time.Second}) // refreshed on every use
	srv.AddRepo(ghtest.Repo{Owner: owner, Name: repo})
	app, e := NewApp(AppConfig{AppID: srv.AppID(), PrivateKey: srv.PrivateKey(), BaseURL: srv.URL(), WriteInterval: -1})
	require.NoError(t, e)
	c, e := app.Client(t.Context(), srv.Installation())
	require.NoError(t, e)
	srv.SetRateLimit(srv.Installation(), 5000, Reserve(5000)+1, time.Now().Add(10*time.Minute))
	_, e = c.Permission(t.Context(), owner, repo, "alice")
	require.NoError(t, e)
	before := srv.TokensIssued()
	_, e = c.Permission(context.WithoutCancel(t.Context()), owner, repo, "alice")
	var rl *RateLimitError
	require.ErrorAs(t, e, &rl)
	assert.True(t, rl.Held)
	assert.Greater(t, srv.TokensIssued(), before, "the token was fetched")
	tok, e := app.Token(t.Context(), srv.Installation())
	require.NoError(t, e)
	assert.NotEmpty(t, tok)
}
