package ghport_test

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/workflow"
	"github.com/issuesmith/issuesmith/workflow/ghport"
)

const owner, repo = "octo", "hello"

// setup starts the fake GitHub with one repository and returns it, the
// App, the raw client of its installation and the adapted one (through
// Installations, as the server wires it).
func setup(t *testing.T) (*ghtest.Server, *ghapp.App, *ghapp.Client, workflow.GitHub) {
	t.Helper()
	srv := ghtest.New(t, ghtest.Options{})
	srv.AddRepo(ghtest.Repo{Owner: owner, Name: repo, DefaultBranch: "trunk", CloneURL: "https://git.example/octo/hello.git"})
	app, err := ghapp.NewApp(ghapp.AppConfig{AppID: srv.AppID(), PrivateKey: srv.PrivateKey(), BaseURL: srv.URL(),
		BotLogin: srv.BotLogin(), WriteInterval: -1, Backoff: time.Millisecond, MaxWait: 100 * time.Millisecond})
	require.NoError(t, err)
	raw, err := app.Client(t.Context(), srv.Installation())
	require.NoError(t, err)
	gh, err := ghport.Installations(app).Client(t.Context(), srv.Installation())
	require.NoError(t, err)
	return srv, app, raw, gh
}

func TestRepositoryIssueAndCommentsInTheWorkflowsTerms(t *testing.T) {
	t.Parallel()
	srv, _, _, gh := setup(t)
	ctx := t.Context()

	r, err := gh.Repository(ctx, owner, repo)
	require.NoError(t, err)
	require.Equal(t, &workflow.Repository{DefaultBranch: "trunk", CloneURL: "https://git.example/octo/hello.git"}, r)

	n := srv.AddIssue(owner, repo, ghtest.Issue{Title: "Greet", Body: "by name", User: "alice", Labels: []string{"bug", "issuesmith"}})
	is, err := gh.GetIssue(ctx, owner, repo, n)
	require.NoError(t, err)
	require.Equal(t, &workflow.Issue{Title: "Greet", Body: "by name", Labels: []string{"bug", "issuesmith"}}, is)
	require.NoError(t, gh.ReactIssue(ctx, owner, repo, n, "eyes"))
	got, _ := srv.Issue(owner, repo, n)
	require.Contains(t, got.Reactions, srv.BotLogin()+":eyes")

	m := ghtext.Marker{Kind: "spec"}
	c, err := gh.UpsertComment(ctx, owner, repo, n, m, "the spec")
	require.NoError(t, err)
	require.NotZero(t, c.ID)
	require.Equal(t, "the spec", ghtext.StripMarker(c.Body))
	require.Contains(t, c.HTMLURL, "https://")
	again, err := gh.GetComment(ctx, owner, repo, c.ID)
	require.NoError(t, err)
	require.Equal(t, c, again)
	found, fm, err := gh.FindComment(ctx, owner, repo, n, m)
	require.NoError(t, err)
	require.Equal(t, c, found)
	require.Equal(t, "spec", fm.Kind)
}

func TestPullRequestAndReviewThreadInTheWorkflowsTerms(t *testing.T) {
	t.Parallel()
	srv, _, _, gh := setup(t)
	ctx := t.Context()
	srv.SetRefResolver(func(_, _, ref string) string {
		return map[string]string{"issuesmith/issue-1": strings.Repeat("a", 40), "trunk": strings.Repeat("b", 40)}[ref]
	})
	pr, err := gh.CreatePR(ctx, owner, repo, workflow.NewPR{Title: "Fix", Head: "issuesmith/issue-1", Base: "trunk", Body: "Fixes #1", Draft: true})
	require.NoError(t, err)
	require.Equal(t, &workflow.PullRequest{Number: pr.Number, State: "open", Draft: true,
		HTMLURL: "https://github.com/octo/hello/pull/" + strconv.Itoa(pr.Number),
		HeadSHA: strings.Repeat("a", 40), BaseSHA: strings.Repeat("b", 40)}, pr)
	prs := srv.PullRequests(owner, repo)
	require.Len(t, prs, 1)
	require.Equal(t, "Fixes #1", prs[0].Body)
	require.True(t, prs[0].Draft)
	require.NoError(t, gh.RequestReviewers(ctx, owner, repo, pr.Number, "alice"))
	require.Equal(t, []string{"alice"}, srv.PullRequests(owner, repo)[0].Reviewers)

	root := srv.AddReviewComment(owner, repo, pr.Number, ghtest.ReviewComment{User: "alice", Path: "main.go", StartLine: 10, Line: 12, Body: "rename this"})
	reply, err := gh.ReplyToReviewComment(ctx, owner, repo, pr.Number, root, "done")
	require.NoError(t, err)
	require.Contains(t, reply.HTMLURL, "#discussion_r")
	rc, err := gh.GetReviewComment(ctx, owner, repo, root)
	require.NoError(t, err)
	require.Equal(t, "main.go", rc.Path)
	require.Equal(t, 10, rc.StartLine)
	require.Equal(t, 12, rc.Line)
	require.Equal(t, "rename this", rc.Body)
	require.Equal(t, "alice", rc.Author)
	require.False(t, rc.AuthorIsBot)
	thread, err := gh.ReviewThread(ctx, owner, repo, pr.Number, root)
	require.NoError(t, err)
	require.Len(t, thread, 2)
	require.Equal(t, "alice", thread[0].Author)
	require.Equal(t, srv.BotLogin(), thread[1].Author)
	require.True(t, thread[1].AuthorIsBot, "the App's comments are a bot's")
	require.Equal(t, "done", thread[1].Body)

	srv.ClosePR(owner, repo, pr.Number, true)
	merged, err := gh.FindPR(ctx, owner, repo, "issuesmith/issue-1")
	require.NoError(t, err)
	require.Equal(t, "closed", merged.State)
	require.True(t, merged.Merged)
	byNumber, err := gh.GetPR(ctx, owner, repo, pr.Number)
	require.NoError(t, err)
	require.Equal(t, merged, byNumber)
}

func TestChecksInTheWorkflowsTerms(t *testing.T) {
	t.Parallel()
	srv, _, _, gh := setup(t)
	ctx := t.Context()
	sha := strings.Repeat("c", 40)
	job := srv.AddCheckRun(owner, repo, ghtest.CheckRun{HeadSHA: sha, Name: "test", Conclusion: "failure",
		Title: "1 test failed", Summary: "see the log", Log: "--- FAIL: TestX\n"})
	lint := srv.AddCheckRun(owner, repo, ghtest.CheckRun{HeadSHA: sha, Name: "lint", Conclusion: "failure",
		Annotations: []ghtest.Annotation{{Path: "a.go", StartLine: 3, Level: "warning", Title: "vet", Message: "shadowed"}}})
	runs, err := gh.CheckRuns(ctx, owner, repo, sha)
	require.NoError(t, err)
	require.Len(t, runs, 2)
	byName := map[string]workflow.CheckRun{}
	for _, r := range runs {
		byName[r.Name] = r
	}
	require.Equal(t, workflow.CheckRun{ID: job, Name: "test", Status: "completed", Conclusion: "failure",
		Title: "1 test failed", Summary: "see the log", Actions: true}, byName["test"])
	require.False(t, byName["lint"].Actions)
	require.Equal(t, 1, byName["lint"].AnnotationCount)
	anns, err := gh.CheckRunAnnotations(ctx, owner, repo, lint)
	require.NoError(t, err)
	require.Equal(t, []workflow.Annotation{{Path: "a.go", StartLine: 3, Level: "warning", Title: "vet", Message: "shadowed"}}, anns)
	log, err := gh.JobLog(ctx, owner, repo, job)
	require.NoError(t, err)
	require.Equal(t, "--- FAIL: TestX\n", log)
	none, err := gh.CheckRuns(ctx, owner, repo, strings.Repeat("d", 40))
	require.NoError(t, err)
	require.NotNil(t, none, "no checks is an empty list")
	require.Empty(t, none)
}

// The errors the workflow acts on answer its sentinels, and still ghapp's,
// with the client's text unchanged.
func TestErrorsGainTheWorkflowsSentinelsAndKeepTheirText(t *testing.T) {
	t.Parallel()
	srv, _, raw, gh := setup(t)
	ctx := t.Context()
	n := srv.AddIssue(owner, repo, ghtest.Issue{Title: "x", User: "alice"})

	_, _, rawErr := raw.FindComment(ctx, owner, repo, n, ghtext.Marker{Kind: "plan"})
	_, _, err := gh.FindComment(ctx, owner, repo, n, ghtext.Marker{Kind: "plan"})
	require.ErrorIs(t, err, workflow.ErrNotFound)
	require.ErrorIs(t, err, ghapp.ErrNotFound)
	require.Equal(t, rawErr.Error(), err.Error())
	require.NotErrorIs(t, err, workflow.ErrNoAccess)

	_, err = gh.FileContent(ctx, owner, repo, ".github/issuesmith.yml", "trunk")
	require.ErrorIs(t, err, workflow.ErrNotFound, "a 404 from GitHub")

	job := srv.AddCheckRun(owner, repo, ghtest.CheckRun{HeadSHA: strings.Repeat("e", 40), Name: "test", Conclusion: "failure", Log: "x"})
	srv.Inject(ghtest.Fault{Op: "GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs", Status: http.StatusForbidden,
		Body: `{"message":"Resource not accessible by integration"}`})
	_, err = gh.JobLog(ctx, owner, repo, job)
	require.ErrorIs(t, err, workflow.ErrNoAccess)
	require.NotErrorIs(t, err, workflow.ErrNotFound)
}

func TestForksInTheWorkflowsTerms(t *testing.T) {
	t.Parallel()
	srv, app, _, _ := setup(t)
	ctx := t.Context()
	_, err := ghport.Forks{F: &ghapp.Forks{App: app, Account: owner}}.Fork(ctx, owner, repo)
	require.ErrorIs(t, err, workflow.ErrNotAFork, "a repository is not its own fork")
	require.ErrorIs(t, err, ghapp.ErrNotAFork)

	srv.AddAccount(ghtest.Account{Login: "elsewhere"})
	f := ghport.Forks{F: &ghapp.Forks{App: app, Account: "elsewhere"}}
	require.Equal(t, "elsewhere", f.Owner())
	_, err = f.Fork(ctx, owner, repo)
	require.ErrorIs(t, err, workflow.ErrNotInstalled)
	require.NotErrorIs(t, err, workflow.ErrNotAFork)

	srv.AddAccount(ghtest.Account{Login: "bots", Installation: srv.Installation(),
		CloneURL: func(name string) string { return "https://git.example/bots/" + name + ".git" }})
	fk, err := ghport.Forks{F: &ghapp.Forks{App: app, Account: "bots", Poll: time.Millisecond}}.Fork(ctx, owner, repo)
	require.NoError(t, err)
	require.Equal(t, &workflow.Fork{Owner: "bots", Repo: repo, CloneURL: "https://git.example/bots/hello.git",
		InstallationID: srv.Installation()}, fk)
}

// A rate limit the client did not sit out — 403 or 429, primary or
// secondary — reaches the workflow as a *workflow.RateLimitError saying
// until when, the client's error (text and chain) kept. (Each case has an
// installation of its own: after a spent primary limit the client holds
// every request back until the reset.)
func TestRateLimitsBecomeTheWorkflowsRateLimitError(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	reset := time.Now().Add(time.Hour).Truncate(time.Second)
	for _, status := range []int{http.StatusForbidden, http.StatusTooManyRequests} {
		srv, _, _, gh := setup(t)
		srv.Inject(srv.PrimaryLimit("GET /repos/{owner}/{repo}", status, reset, 1))
		_, err := gh.Repository(ctx, owner, repo)
		var rl *workflow.RateLimitError
		require.ErrorAs(t, err, &rl)
		require.False(t, rl.Secondary)
		require.True(t, reset.Add(time.Second).Equal(rl.Reset), "reset %v, got %v", reset, rl.Reset)
		var limit *ghapp.RateLimitError
		require.ErrorAs(t, err, &limit)
		require.Equal(t, status, limit.Status)
		require.True(t, strings.HasPrefix(err.Error(), "get repository octo/hello: "), "the client's text, unchanged: %v", err)

		srv, _, _, gh = setup(t)
		srv.Inject(srv.SecondaryLimit("GET /repos/{owner}/{repo}", status, 2*time.Minute, 1))
		before := time.Now()
		_, err = gh.Repository(ctx, owner, repo)
		require.ErrorAs(t, err, &rl)
		require.True(t, rl.Secondary, "%v", err)
		require.WithinRange(t, rl.Reset, before.Add(2*time.Minute), time.Now().Add(2*time.Minute))
	}

	require.NoError(t, ghport.Err(nil))
	plain := errors.New("boom")
	require.Same(t, plain, ghport.Err(plain), "an error the workflow does not act on is returned as it is")
}
