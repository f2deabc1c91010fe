package giteaport_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/gitea"
	"github.com/issuesmith/issuesmith/gitea/giteatest"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/workflow"
	"github.com/issuesmith/issuesmith/workflow/giteaport"
)

// A 5xx that persists past the transport's retries is returned as Gitea's
// error: none of the workflow's sentinels, no rate limit. One that passes
// is retried away.
func TestServerErrorPersists(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	n := f.srv.AddIssue(owner, repo, giteatest.Issue{Title: "t", User: "alice"})
	f.srv.Inject(giteatest.Fault{Op: opGetIssue, Status: http.StatusServiceUnavailable, Times: -1,
		Body: `{"message":"database is locked"}`})

	_, err := f.g.GetIssue(t.Context(), owner, repo, n)
	require.Error(t, err)
	var ge *gitea.Error
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, http.StatusServiceUnavailable, ge.Status)
	assert.Contains(t, err.Error(), "database is locked")
	assert.NotErrorIs(t, err, workflow.ErrNotFound)
	assert.NotErrorIs(t, err, workflow.ErrNoAccess)
	var rl *workflow.RateLimitError
	assert.False(t, errors.As(err, &rl))
	assert.Equal(t, 3, f.srv.Calls(opGetIssue), "the first try and two retries")
	assert.Equal(t, []time.Duration{time.Millisecond, 2 * time.Millisecond}, f.waits.all())
}

func TestServerErrorRetriedAway(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	n := f.srv.AddIssue(owner, repo, giteatest.Issue{Title: "t", User: "alice"})
	f.srv.Inject(giteatest.Fault{Op: opPostComment, Status: http.StatusBadGateway, Times: 2})
	_, err := f.g.UpsertComment(t.Context(), owner, repo, n, ghtext.Marker{Kind: "progress"}, "working")
	require.NoError(t, err)
	assert.Len(t, f.srv.Comments(owner, repo, n), 1, "a retried write is made once")
	assert.Equal(t, 3, f.srv.Calls(opPostComment))
}

// A deleted issue or pull request is workflow.ErrNotFound on every route,
// including the comment routes, which Gitea 1.26 answers 500 for it.
func TestDeletedIssueIsNotFound(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := t.Context()
	n := f.srv.AddIssue(owner, repo, giteatest.Issue{Title: "t", User: "alice", Labels: []string{"issuesmith"}})
	id := f.srv.AddComment(owner, repo, n, bot, "<!-- issuesmith:progress run=- v=1 -->\nworking")
	pr := f.srv.AddPull(owner, repo, pull("WIP: x", branch, "open"))
	f.srv.DeleteIssue(owner, repo, n)
	f.srv.DeleteIssue(owner, repo, pr)

	_, err := f.g.GetIssue(ctx, owner, repo, n)
	require.ErrorIs(t, err, workflow.ErrNotFound)
	require.ErrorIs(t, f.g.ReactIssue(ctx, owner, repo, n, "eyes"), workflow.ErrNotFound)
	require.ErrorIs(t, f.g.RemoveLabel(ctx, owner, repo, n, "issuesmith"), workflow.ErrNotFound)
	_, err = f.g.GetComment(ctx, owner, repo, id)
	require.ErrorIs(t, err, workflow.ErrNotFound)
	_, err = f.g.GetPR(ctx, owner, repo, pr)
	require.ErrorIs(t, err, workflow.ErrNotFound)
	require.ErrorIs(t, f.g.MarkReady(ctx, owner, repo, pr), workflow.ErrNotFound)

	_, _, err = f.g.FindComment(ctx, owner, repo, n, ghtext.Marker{Kind: "progress"})
	require.ErrorIs(t, err, workflow.ErrNotFound)
	_, err = f.g.UpsertComment(ctx, owner, repo, n, ghtext.Marker{Kind: "progress"}, "done")
	require.ErrorIs(t, err, workflow.ErrNotFound)
	assert.Contains(t, err.Error(), "octo/hello#1 is gone")
	assert.Equal(t, 0, f.srv.Calls(opPostComment)+f.srv.Calls(opEditComment), "no write is tried")
	_, err = f.g.ReplyToReviewComment(ctx, owner, repo, pr, 555, "Renamed.")
	require.ErrorIs(t, err, workflow.ErrNotFound)
	assert.Empty(t, f.srv.Comments(owner, repo, pr))
}

// A 429 whose Retry-After is longer than the transport waits becomes the
// workflow's RateLimitError (its job snoozes until Reset); a short one is
// waited out.
func TestRateLimitIsTheWorkflowsError(t *testing.T) {
	t.Parallel()
	f := setup(t, func(o *gitea.Options) { o.Transport.MaxWait = time.Minute })
	n := f.srv.AddIssue(owner, repo, giteatest.Issue{Title: "t", User: "alice"})
	f.srv.Inject(giteatest.RateLimit(opGetIssue, 10*time.Minute, 1))

	before := time.Now()
	_, err := f.g.GetIssue(t.Context(), owner, repo, n)
	var rl *workflow.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.WithinRange(t, rl.Reset, before.Add(10*time.Minute-time.Second), time.Now().Add(10*time.Minute+time.Second))
	assert.Equal(t, 1, f.srv.Calls(opGetIssue), "not retried")
	assert.Empty(t, f.waits.all(), "not waited")

	f.srv.Inject(giteatest.RateLimit(opGetIssue, 30*time.Second, 1))
	is, err := f.g.GetIssue(t.Context(), owner, repo, n)
	require.NoError(t, err)
	assert.Equal(t, "t", is.Title)
	assert.Equal(t, []time.Duration{30 * time.Second}, f.waits.all())
}

// A token without a scope the call needs: Gitea's 403 naming the scope,
// which is workflow.ErrNoAccess.
func TestMissingScopeIsNoAccess(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	n := f.srv.AddIssue(owner, repo, giteatest.Issue{Title: "t", User: "alice"})
	g := client(t, f.srv, f.srv.AddToken(bot, "read:issue", "write:repository"), f.waits, nil)
	_, err := g.UpsertComment(t.Context(), owner, repo, n, ghtext.Marker{Kind: "progress"}, "working")
	require.ErrorIs(t, err, workflow.ErrNoAccess)
	assert.Contains(t, err.Error(), "required=[write:issue]")
	assert.Empty(t, f.srv.Comments(owner, repo, n))
}

// Installations serves the Gitea server's own id and refuses any other.
func TestInstallationsRefusesAnotherID(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	inst := giteaport.Installations(f.g, -1)

	gh, err := inst.Client(t.Context(), -1)
	require.NoError(t, err)
	assert.Equal(t, f.g, gh)

	gh, err = inst.Client(t.Context(), 5)
	require.Error(t, err)
	assert.Nil(t, gh)
	assert.Contains(t, err.Error(), "installation 5 is not the Gitea server's (-1)")
	assert.Empty(t, f.srv.Requests())
}
