package gitea_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/gitea"
	"github.com/issuesmith/issuesmith/gitea/giteatest"
	"github.com/stretchr/testify/require"
)

const owner, repo = "octo", "hello"

// waits records the transport's waits instead of sleeping them.
type waits struct {
	mu  sync.Mutex
	now time.Time
	got []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if d > 0 {
		w.got = append(w.got, d)
		w.now = w.now.Add(d)
	}
	return ctx.Err()
}

func (w *waits) clock() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.now
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.got...)
}

// setup starts a fake Gitea with the bot ("issuesmith", admin of
// octo/hello, a token with every scope the bot needs) and returns a client
// of the bot whose transport records waits instead of sleeping.
func setup(t *testing.T, mod func(*gitea.Options)) (*giteatest.Server, *gitea.Client, string, *waits) {
	t.Helper()
	srv := giteatest.New(t, giteatest.Options{})
	srv.AddRepo(giteatest.Repo{Owner: owner, Name: repo, CloneURL: "http://git.invalid/octo/hello.git"})
	srv.SetPermission(owner, repo, "issuesmith", "admin")
	token := srv.AddToken("issuesmith", "write:issue", "write:repository", "read:user")
	w := &waits{now: time.Now()}
	opts := gitea.Options{Transport: ghapp.TransportOptions{WriteInterval: -1, Backoff: 100 * time.Millisecond,
		Sleep: w.sleep, Now: w.clock}}
	if mod != nil {
		mod(&opts)
	}
	c, err := gitea.New(srv.URL(), token, opts)
	require.NoError(t, err)
	return srv, c, token, w
}
