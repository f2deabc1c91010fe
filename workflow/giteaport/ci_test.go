package giteaport_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/gitea/giteatest"
	"github.com/issuesmith/issuesmith/workflow"
)

// CheckRuns are the commit's latest status per context: pending is
// running, success passed, failure and error failed, warning neutral,
// skipped skipped (no failure to fix); the description is the summary.
func TestCheckRunsFromCommitStatuses(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	for _, st := range []giteatest.Status{
		{State: "pending", Context: "ci/build"},
		{State: "success", Context: "ci/build", Description: "built", TargetURL: "http://ci.invalid/1"},
		{State: "pending", Context: "ci/test", Description: "running"},
		{State: "failure", Context: "ci/lint", Description: "2 problems", TargetURL: "http://ci.invalid/3"},
		{State: "error", Context: "ci/deploy", Description: "runner lost"},
		{State: "warning", Context: "ci/cover", Description: "coverage down"},
		{State: "skipped", Context: "ci/docs", Description: "no docs changed"},
	} {
		f.srv.SetStatus(owner, repo, headSHA, "ci", st)
	}

	runs, err := f.g.CheckRuns(t.Context(), owner, repo, headSHA)
	require.NoError(t, err)
	type got struct{ status, conclusion, summary, text string }
	byName := map[string]got{}
	for _, r := range runs {
		assert.NotZero(t, r.ID, r.Name)
		assert.Equal(t, r.Summary, r.Title, r.Name)
		byName[r.Name] = got{r.Status, r.Conclusion, r.Summary, r.Text}
	}
	assert.Equal(t, map[string]got{
		"ci/build":  {"completed", "success", "built", "http://ci.invalid/1"},
		"ci/test":   {"in_progress", "", "running", ""},
		"ci/lint":   {"completed", "failure", "2 problems", "http://ci.invalid/3"},
		"ci/deploy": {"completed", "failure", "runner lost", ""},
		"ci/cover":  {"completed", "neutral", "coverage down", ""},
		"ci/docs":   {"completed", "skipped", "no docs changed", ""},
	}, byName)

	var failed []string
	for _, r := range runs {
		if r.Failed() {
			failed = append(failed, r.Name)
		}
	}
	assert.ElementsMatch(t, []string{"ci/lint", "ci/deploy"}, failed, "only failure and error are the bot's to fix")
}

// A branch name is a ref too; a commit without statuses has no checks.
func TestCheckRunsByBranchAndNone(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	f.srv.SetBranch(owner, repo, branch, headSHA)
	f.srv.SetStatus(owner, repo, headSHA, "ci", giteatest.Status{State: "success", Context: "ci/build"})

	runs, err := f.g.CheckRuns(t.Context(), owner, repo, branch)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	assert.Equal(t, "ci/build", runs[0].Name)

	runs, err = f.g.CheckRuns(t.Context(), owner, repo, baseSHA)
	require.NoError(t, err)
	assert.Empty(t, runs)

	_, err = f.g.CheckRuns(t.Context(), owner, repo, "no-such-branch")
	require.ErrorIs(t, err, workflow.ErrNotFound)
}

// A commit status has no annotations: none, without asking Gitea.
func TestCheckRunAnnotationsEmpty(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	as, err := f.g.CheckRunAnnotations(t.Context(), owner, repo, 42)
	require.NoError(t, err)
	assert.Empty(t, as)
	assert.Empty(t, f.srv.Requests())
}

func TestJobLog(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	f.srv.SetJobLog(owner, repo, 12, "step 1\nFAIL: TestX\n")
	log, err := f.g.JobLog(t.Context(), owner, repo, 12)
	require.NoError(t, err)
	assert.Equal(t, "step 1\nFAIL: TestX\n", log)
	_, err = f.g.JobLog(t.Context(), owner, repo, 13)
	require.ErrorIs(t, err, workflow.ErrNotFound)
}

// Gitea 1.26 has no reply in a review thread: the reply is a comment in
// the pull request's conversation, by the bot.
func TestReplyToReviewCommentInTheConversation(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	n := f.srv.AddPull(owner, repo, pull("WIP: x", branch, "open"))
	f.srv.AddReview(owner, repo, n, giteatest.Review{User: "alice", State: "REQUEST_CHANGES",
		Comments: []giteatest.ReviewComment{{Path: "a.go", Body: "rename this", Line: 3}}})

	c, err := f.g.ReplyToReviewComment(t.Context(), owner, repo, n, 555, "> rename this\n\nRenamed.")
	require.NoError(t, err)
	assert.Equal(t, bot, c.Author)
	assert.True(t, c.AuthorIsBot)
	assert.Equal(t, "> rename this\n\nRenamed.", c.Body)
	assert.Contains(t, c.HTMLURL, "/octo/hello/issues/1#issuecomment-")
	cs := f.srv.Comments(owner, repo, n)
	require.Len(t, cs, 1)
	assert.Equal(t, giteatest.Comment{ID: cs[0].ID, User: bot, Body: "> rename this\n\nRenamed."}, cs[0])
}

// Gitea's review deliveries name no comment, so there is none to read by
// id: ErrNotFound (the workflow falls back to the review's text), without
// a request.
func TestReviewCommentsByIDAreNotFound(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	_, err := f.g.GetReviewComment(t.Context(), owner, repo, 555)
	require.ErrorIs(t, err, workflow.ErrNotFound)
	assert.Contains(t, err.Error(), "review comment 555 of octo/hello")
	th, err := f.g.ReviewThread(t.Context(), owner, repo, 1, 555)
	require.ErrorIs(t, err, workflow.ErrNotFound)
	assert.Empty(t, th)
	assert.Empty(t, f.srv.Requests())
}
