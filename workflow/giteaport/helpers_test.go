package giteaport_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/gitea"
	"github.com/issuesmith/issuesmith/gitea/giteatest"
	"github.com/issuesmith/issuesmith/workflow/giteaport"
)

const (
	owner, repo = "octo", "hello"
	bot         = "issuesmith"
	headSHA     = "1111111111111111111111111111111111111111"
	baseSHA     = "2222222222222222222222222222222222222222"
)

// Operations of Gitea's description, as giteatest counts them.
const (
	opListComments = "GET /repos/{owner}/{repo}/issues/{index}/comments"
	opPostComment  = "POST /repos/{owner}/{repo}/issues/{index}/comments"
	opEditComment  = "PATCH /repos/{owner}/{repo}/issues/comments/{id}"
	opGetIssue     = "GET /repos/{owner}/{repo}/issues/{index}"
	opListPulls    = "GET /repos/{owner}/{repo}/pulls"
	opEditPull     = "PATCH /repos/{owner}/{repo}/pulls/{index}"
	opRemoveLabel  = "DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}"
)

// waits records the transport's waits instead of sleeping them, on a clock
// that moves by what it waited.
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

// fixture is a fake Gitea with octo/hello (default branch main at
// baseSHA), the bot user administering it, and the adapter acting as the
// bot through the real gitea client.
type fixture struct {
	srv   *giteatest.Server
	g     giteaport.Client
	waits *waits
}

// setup starts the fixture; mod changes the gitea client's options. The
// transport spaces no writes, retries a 5xx twice after 1 ms and 2 ms, and
// never sleeps: its waits are recorded in f.waits.
func setup(t *testing.T, mod func(*gitea.Options)) fixture {
	t.Helper()
	srv := giteatest.New(t, giteatest.Options{})
	srv.AddRepo(giteatest.Repo{Owner: owner, Name: repo, CloneURL: "http://git.invalid/octo/hello.git"})
	srv.SetBranch(owner, repo, "main", baseSHA)
	srv.SetPermission(owner, repo, bot, "admin")
	token := srv.AddToken(bot, "write:issue", "write:repository", "read:user")
	w := &waits{now: time.Now()}
	return fixture{srv: srv, g: client(t, srv, token, w, mod), waits: w}
}

// client is the adapter over a gitea client of srv with token (see setup).
func client(t *testing.T, srv *giteatest.Server, token string, w *waits, mod func(*gitea.Options)) giteaport.Client {
	t.Helper()
	opts := gitea.Options{Transport: ghapp.TransportOptions{WriteInterval: -1, MaxRetries: 2, Backoff: time.Millisecond,
		Sleep: w.sleep, Now: w.clock}}
	if mod != nil {
		mod(&opts)
	}
	c, err := gitea.New(srv.URL(), token, opts)
	require.NoError(t, err)
	return giteaport.New(c, bot)
}
