package ghapp

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const permOp = "GET /repos/{owner}/{repo}/collaborators/{username}/permission"

func TestServerErrorsAreRetriedWithBackoff(t *testing.T) {
	t.Parallel()
	srv, c, sl := setup(t, nil)
	srv.SetPermission(owner, repo, "alice", "write")
	srv.Inject(ghtest.Fault{Op: permOp, Status: http.StatusBadGateway, Times: 2})

	ok, err := c.CanWrite(t.Context(), owner, repo, "alice")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, 3, srv.Calls(permOp))
	assert.Equal(t, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, sl.got())
}

func TestServerErrorsGiveUp(t *testing.T) {
	t.Parallel()
	srv, c, sl := setup(t, func(cfg *AppConfig) { cfg.MaxRetries = 2 })
	srv.Inject(ghtest.Fault{Op: permOp, Status: http.StatusServiceUnavailable, Times: -1})

	_, err := c.CanWrite(t.Context(), owner, repo, "alice")
	var er *github.ErrorResponse
	require.ErrorAs(t, err, &er, "the caller sees GitHub's error and must deny")
	assert.Equal(t, http.StatusServiceUnavailable, er.Response.StatusCode)
	assert.Equal(t, 3, srv.Calls(permOp), "first try and two retries")
	assert.Len(t, sl.got(), 2)
}

func TestRateLimitsAreWaitedOut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		fault  func(now time.Time) ghtest.Fault
		wantAt time.Duration
	}{
		{"secondary with Retry-After", func(time.Time) ghtest.Fault {
			return ghtest.Fault{Op: permOp, Status: http.StatusForbidden, Header: http.Header{"Retry-After": {"7"}},
				Body: `{"message":"You have exceeded a secondary rate limit."}`}
		}, 7 * time.Second},
		{"429 with Retry-After", func(time.Time) ghtest.Fault {
			return ghtest.Fault{Op: permOp, Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"2"}}}
		}, 2 * time.Second},
		{"primary exhausted until reset", func(now time.Time) ghtest.Fault {
			return ghtest.Fault{Op: permOp, Status: http.StatusForbidden, Header: http.Header{
				"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {strconv.FormatInt(now.Add(30*time.Second).Unix(), 10)}},
				Body: `{"message":"API rate limit exceeded"}`}
		}, 30 * time.Second},
		{"secondary without headers", func(time.Time) ghtest.Fault {
			return ghtest.Fault{Op: permOp, Status: http.StatusForbidden,
				Body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}`}
		}, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, c, sl := setup(t, func(cfg *AppConfig) { cfg.MaxWait = 2 * time.Minute })
			srv.SetPermission(owner, repo, "alice", "admin")
			srv.Inject(tc.fault(sl.clock()))
			ok, err := c.CanWrite(t.Context(), owner, repo, "alice")
			require.NoError(t, err)
			assert.True(t, ok)
			waits := sl.got()
			require.Len(t, waits, 1)
			// The reset time has one-second resolution and a second of margin.
			assert.InDelta(t, tc.wantAt.Seconds(), waits[0].Seconds(), 2)
			assert.Equal(t, 2, srv.Calls(permOp))
		})
	}
}

// TestRateLimitsAreOneError: every rate limit GitHub documents — 403 and
// 429, the primary limit spent (remaining 0, reset in 10 minutes on the
// injected clock) and a secondary one (Retry-After of 5 minutes, or only
// the message) — longer than the transport waits comes back as one
// *RateLimitError saying until when, after one request and no wait.
func TestRateLimitsAreOneError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		fault     func(srv *ghtest.Server, now time.Time) ghtest.Fault
		secondary bool
		until     time.Duration
	}{
		{"403 primary", func(srv *ghtest.Server, now time.Time) ghtest.Fault {
			return srv.PrimaryLimit(permOp, http.StatusForbidden, now.Add(10*time.Minute), 1)
		}, false, 10*time.Minute + time.Second},
		{"429 primary", func(srv *ghtest.Server, now time.Time) ghtest.Fault {
			return srv.PrimaryLimit(permOp, http.StatusTooManyRequests, now.Add(10*time.Minute), 1)
		}, false, 10*time.Minute + time.Second},
		{"403 secondary with Retry-After", func(srv *ghtest.Server, _ time.Time) ghtest.Fault {
			return srv.SecondaryLimit(permOp, http.StatusForbidden, 5*time.Minute, 1)
		}, true, 5 * time.Minute},
		{"429 secondary with Retry-After", func(srv *ghtest.Server, _ time.Time) ghtest.Fault {
			return srv.SecondaryLimit(permOp, http.StatusTooManyRequests, 5*time.Minute, 1)
		}, true, 5 * time.Minute},
		{"403 secondary, message only", func(srv *ghtest.Server, _ time.Time) ghtest.Fault {
			return srv.SecondaryLimit(permOp, http.StatusForbidden, -1, 1)
		}, true, time.Minute},
		{"429 secondary, message only", func(srv *ghtest.Server, _ time.Time) ghtest.Fault {
			return srv.SecondaryLimit(permOp, http.StatusTooManyRequests, -1, 1)
		}, true, time.Minute},
		{"bare 429", func(*ghtest.Server, time.Time) ghtest.Fault {
			return ghtest.Fault{Op: permOp, Status: http.StatusTooManyRequests}
		}, true, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, c, sl := setup(t, nil)
			// The injected clock is a day off the real one: every time
			// read is the transport's, not the machine's.
			sl.mu.Lock()
			sl.now = sl.now.Add(24 * time.Hour).Truncate(time.Second)
			sl.mu.Unlock()
			now := sl.clock()
			srv.Inject(tc.fault(srv, now))
			_, err := c.CanWrite(t.Context(), owner, repo, "alice")
			var rl *RateLimitError
			require.ErrorAs(t, err, &rl)
			assert.Equal(t, tc.secondary, rl.Secondary)
			assert.Equal(t, now.Add(tc.until), rl.Until)
			assert.Equal(t, permOp[:3], rl.Method)
			assert.Contains(t, err.Error(), "rate limit")
			got, ok := RateLimitOf(err, now)
			require.True(t, ok)
			assert.Same(t, rl, got)
			assert.Empty(t, sl.got(), "no wait inside the request")
			assert.Equal(t, 1, srv.Calls(permOp))
		})
	}
}

// TestRateLimitPastTheDeadlineIsReturned: a wait the transport would sit
// out is returned instead when the request's deadline comes first.
func TestRateLimitPastTheDeadlineIsReturned(t *testing.T) {
	t.Parallel()
	srv, c, sl := setup(t, nil)
	srv.Inject(srv.SecondaryLimit(permOp, http.StatusTooManyRequests, 5*time.Second, 1))
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	_, err := c.CanWrite(ctx, owner, repo, "alice")
	var rl *RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Empty(t, sl.got())
}

func TestForbiddenIsNotRetried(t *testing.T) {
	t.Parallel()
	srv, c, sl := setup(t, nil)
	srv.Inject(ghtest.Fault{Op: permOp, Status: http.StatusForbidden, Body: `{"message":"Resource not accessible by integration"}`})
	_, err := c.CanWrite(t.Context(), owner, repo, "alice")
	require.Error(t, err)
	assert.Equal(t, 1, srv.Calls(permOp))
	assert.Empty(t, sl.got())
}

func TestRetriedWriteResendsItsBody(t *testing.T) {
	t.Parallel()
	srv, c, _ := setup(t, nil)
	n := srv.AddIssue(owner, repo, ghtest.Issue{Title: "t", User: "alice"})
	srv.Inject(ghtest.Fault{Op: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments", Status: http.StatusInternalServerError})
	_, err := c.CreateComment(t.Context(), owner, repo, n, "hello after a 500")
	require.NoError(t, err)
	cs := srv.Comments(owner, repo, n)
	require.Len(t, cs, 1)
	assert.Equal(t, "hello after a 500", cs[0].Body)
}

func TestWritesAreSpacedPerInstallation(t *testing.T) {
	t.Parallel()
	srv, c, sl := setup(t, func(cfg *AppConfig) { cfg.WriteInterval = 0 }) // the default second
	n := srv.AddIssue(owner, repo, ghtest.Issue{Title: "t", User: "alice"})
	for range 3 {
		_, err := c.CreateComment(t.Context(), owner, repo, n, "x")
		require.NoError(t, err)
	}
	_, err := c.GetIssue(t.Context(), owner, repo, n) // reads are not spaced
	require.NoError(t, err)
	// The fake clock only moves by the waits: the first write goes at once,
	// each later one a second after the previous.
	assert.Equal(t, []time.Duration{time.Second, time.Second}, sl.got())
}

func TestTokensAreCachedAndRefreshed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ttl  time.Duration
		want int
	}{
		{"cached for its lifetime", time.Hour, 1},
		// ghinstallation refreshes a token in its last minute.
		{"refreshed near expiry", 50 * time.Second, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := ghtest.New(t, ghtest.Options{TokenTTL: tc.ttl})
			srv.AddRepo(ghtest.Repo{Owner: owner, Name: repo})
			app, err := NewApp(AppConfig{AppID: srv.AppID(), PrivateKey: srv.PrivateKey(), BaseURL: srv.URL(), WriteInterval: -1})
			require.NoError(t, err)
			for range 3 {
				c, err := app.Client(t.Context(), srv.Installation())
				require.NoError(t, err)
				_, err = c.Permission(t.Context(), owner, repo, "alice")
				require.NoError(t, err)
			}
			assert.Equal(t, tc.want, srv.TokensIssued())
			tok, err := app.Token(t.Context(), srv.Installation())
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(tok, "ghs_"))
		})
	}
}

func TestTokenFailureKeepsSecretsOut(t *testing.T) {
	t.Parallel()
	srv := ghtest.New(t, ghtest.Options{})
	srv.AddRepo(ghtest.Repo{Owner: owner, Name: repo})
	app, err := NewApp(AppConfig{AppID: srv.AppID(), PrivateKey: srv.PrivateKey(), BaseURL: srv.URL(), MaxRetries: -1})
	require.NoError(t, err)
	srv.Inject(ghtest.Fault{Op: "POST /app/installations/{installation_id}/access_tokens", Status: http.StatusInternalServerError, Times: -1})
	_, err = app.Token(t.Context(), srv.Installation())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "status 500")
	assert.NotContains(t, err.Error(), "PRIVATE KEY")
	assert.NotContains(t, err.Error(), "Bearer")

	_, err = NewApp(AppConfig{AppID: 1, PrivateKey: []byte("-----BEGIN RSA PRIVATE KEY-----\nnot a key\n-----END RSA PRIVATE KEY-----")})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "not a key")
}

func TestObserveSeesEveryAttempt(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var calls []Call
	srv, c, _ := setup(t, func(cfg *AppConfig) {
		cfg.Observe = func(cl Call) { mu.Lock(); calls = append(calls, cl); mu.Unlock() }
	})
	srv.Inject(ghtest.Fault{Op: permOp, Status: http.StatusBadGateway})
	_, err := c.Permission(t.Context(), owner, repo, "alice")
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	var perm []Call
	for _, cl := range calls {
		if strings.HasSuffix(cl.Path, "/permission") {
			perm = append(perm, cl)
		}
	}
	require.Len(t, perm, 2)
	assert.Equal(t, http.StatusBadGateway, perm[0].Status)
	assert.True(t, perm[0].Retried)
	assert.Equal(t, http.StatusOK, perm[1].Status)
	assert.Greater(t, perm[1].Remaining, 0, "rate-limit remaining for metrics")
}

func TestBotLoginFromGitHub(t *testing.T) {
	t.Parallel()
	srv := ghtest.New(t, ghtest.Options{Slug: "smith"})
	app, err := NewApp(AppConfig{AppID: srv.AppID(), PrivateKey: srv.PrivateKey(), BaseURL: srv.URL()})
	require.NoError(t, err)
	bot, err := app.BotLogin(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "smith[bot]", bot)
	_, _ = app.BotLogin(t.Context())
	assert.Equal(t, 1, srv.Calls("GET /app"), "asked once")
	assert.False(t, errors.Is(err, ErrNotFound))
}

// TestConcurrentWritesShareOneSchedule: writes of one installation from
// several goroutines get distinct slots a second apart; another
// installation has its own schedule.
func TestConcurrentWritesShareOneSchedule(t *testing.T) {
	t.Parallel()
	srv := ghtest.New(t, ghtest.Options{})
	srv.AddRepo(ghtest.Repo{Owner: owner, Name: repo})
	srv.AddRepo(ghtest.Repo{Owner: owner, Name: "other", Installation: 43})
	app, err := NewApp(AppConfig{AppID: srv.AppID(), PrivateKey: srv.PrivateKey(), BaseURL: srv.URL()})
	require.NoError(t, err)
	// A frozen clock: every reservation is made at the same instant, so
	// the waits show the slots directly.
	start := time.Now()
	var mu sync.Mutex
	var waits []time.Duration
	app.now = func() time.Time { return start }
	app.sleep = func(_ context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return nil
	}
	n := srv.AddIssue(owner, repo, ghtest.Issue{Title: "t", User: "alice"})
	c, err := app.Client(t.Context(), srv.Installation())
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			_, err := c.CreateComment(t.Context(), owner, repo, n, "x")
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	slices.Sort(waits)
	assert.Equal(t, []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second}, waits)

	waits = nil
	m := srv.AddIssue(owner, "other", ghtest.Issue{Title: "t", User: "alice"})
	c2, err := app.Client(t.Context(), 43)
	require.NoError(t, err)
	_, err = c2.CreateComment(t.Context(), owner, "other", m, "y")
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{0}, waits, "installation 43 does not wait for 42's writes")
	assert.Len(t, srv.Comments(owner, repo, n), 4)
}
