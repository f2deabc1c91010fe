package ghapp

import (
	"net/http"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/stretchr/testify/require"
)

const headSHA = "8e3c1c1bdd5ab6fbdc2e7a3e6a4b11a0e0c1f2aa"

func TestCheckRunsAnnotationsAndJobLog(t *testing.T) {
	srv, c, _ := setup(t, nil)
	log := strings.Repeat("2026-11-25T05:00:00Z noise\n", 10) + "--- FAIL: TestX (0.01s)\n"
	job := srv.AddCheckRun(owner, repo, ghtest.CheckRun{HeadSHA: headSHA, Name: "test", Conclusion: "failure",
		Title: "1 test failed", Log: log})
	first := srv.AddCheckRun(owner, repo, ghtest.CheckRun{HeadSHA: headSHA, Name: "lint", Conclusion: "failure"})
	other := srv.AddCheckRun(owner, repo, ghtest.CheckRun{HeadSHA: headSHA, Name: "lint", Conclusion: "success",
		Annotations: []ghtest.Annotation{{Path: "a.go", StartLine: 3, Level: "warning", Message: "shadowed"}}})
	srv.AddCheckRun(owner, repo, ghtest.CheckRun{HeadSHA: strings.Repeat("1", 40), Name: "test", Conclusion: "success"})

	runs, err := c.CheckRuns(t.Context(), owner, repo, headSHA)
	require.NoError(t, err)
	require.Len(t, runs, 2, "the latest run of each name, of this commit only")
	byName, apps := map[string]int64{}, map[string]string{}
	for _, r := range runs {
		byName[r.GetName()], apps[r.GetName()] = r.GetID(), r.GetApp().GetSlug()
	}
	require.Equal(t, map[string]int64{"test": job, "lint": other}, byName, "the re-run %d replaced %d", other, first)
	require.Equal(t, "github-actions", apps["test"], "a check with a job log is an Actions job")
	require.NotEqual(t, "github-actions", apps["lint"])

	anns, err := c.CheckRunAnnotations(t.Context(), owner, repo, other)
	require.NoError(t, err)
	require.Len(t, anns, 1)
	require.Equal(t, "a.go", anns[0].GetPath())
	require.Equal(t, 3, anns[0].GetStartLine())

	got, err := c.JobLog(t.Context(), owner, repo, job)
	require.NoError(t, err)
	require.Equal(t, log, got, "the redirect is followed without the token (the fake fails the test if it is sent)")

	srv.Inject(ghtest.Fault{Op: "GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs", Status: http.StatusForbidden,
		Body: `{"message":"Resource not accessible by integration"}`})
	_, err = c.JobLog(t.Context(), owner, repo, job)
	require.ErrorIs(t, err, ErrNoAccess, "an installation without actions:read goes on without logs")
}

func TestReadTailKeepsTheEnd(t *testing.T) {
	s, err := readTail(strings.NewReader(strings.Repeat("a", 300)+"END"), 100)
	require.NoError(t, err)
	require.Len(t, s, 100)
	require.True(t, strings.HasSuffix(s, "aEND"))
}

func TestMarkReadyThroughGraphQL(t *testing.T) {
	srv, c, _ := setup(t, nil)
	pr, err := c.CreatePR(t.Context(), owner, repo, NewPR{Title: "t", Head: "issuesmith/issue-1", Base: "main", Draft: true})
	require.NoError(t, err)
	require.True(t, srv.PullRequests(owner, repo)[0].Draft)
	require.NoError(t, c.MarkReady(t.Context(), owner, repo, pr.GetNumber()))
	require.False(t, srv.PullRequests(owner, repo)[0].Draft)
	require.Equal(t, 1, srv.Calls("POST /graphql"))
	require.NoError(t, c.MarkReady(t.Context(), owner, repo, pr.GetNumber()), "a ready PR stays ready")
	require.Equal(t, 1, srv.Calls("POST /graphql"), "no mutation for a PR that is not a draft")
}
