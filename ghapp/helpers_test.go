package ghapp

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/stretchr/testify/require"
)

const owner, repo = "octo", "hello"

// sleeps records the waits the transport asked for instead of sleeping, and
// advances a fake clock by them.
type sleeps struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d > 0 {
		s.waits = append(s.waits, d)
		s.now = s.now.Add(d)
	}
	return ctx.Err()
}

func (s *sleeps) clock() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// setup starts a fake GitHub with one repository and returns a client of
// its installation whose transport records waits instead of sleeping.
func setup(t *testing.T, mod func(*AppConfig)) (*ghtest.Server, *Client, *sleeps) {
	t.Helper()
	srv := ghtest.New(t, ghtest.Options{})
	srv.AddRepo(ghtest.Repo{Owner: owner, Name: repo})
	cfg := AppConfig{AppID: srv.AppID(), PrivateKey: srv.PrivateKey(), BaseURL: srv.URL(),
		BotLogin: srv.BotLogin(), WriteInterval: -1, Backoff: 100 * time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	app, err := NewApp(cfg)
	require.NoError(t, err)
	sl := &sleeps{now: time.Now()}
	app.sleep, app.now = sl.sleep, sl.clock
	c, err := app.Client(t.Context(), srv.Installation())
	require.NoError(t, err)
	return srv, c, sl
}
