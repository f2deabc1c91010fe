package ghapp

import (
	"testing"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPullRequestLifecycle(t *testing.T) {
	t.Parallel()
	srv, c, _ := setup(t, nil)
	ctx := t.Context()
	const head = "issuesmith/issue-3"

	_, err := c.FindPR(ctx, owner, repo, head)
	require.ErrorIs(t, err, ErrNotFound)

	pr, err := c.CreatePR(ctx, owner, repo, NewPR{Title: "Fix the thing", Head: head, Base: "main", Body: "Fixes #3", Draft: true})
	require.NoError(t, err)
	// A retried step creates nothing new: GitHub's 422 leads to the open PR.
	again, err := c.CreatePR(ctx, owner, repo, NewPR{Title: "Fix the thing", Head: head, Base: "main", Body: "Fixes #3", Draft: true})
	require.NoError(t, err)
	assert.Equal(t, pr.GetNumber(), again.GetNumber())

	found, err := c.FindPR(ctx, owner, repo, head)
	require.NoError(t, err)
	assert.Equal(t, pr.GetNumber(), found.GetNumber())

	body := "Fixes #3\n\nplan: done"
	_, err = c.UpdatePR(ctx, owner, repo, pr.GetNumber(), PRUpdate{Body: &body})
	require.NoError(t, err)
	require.NoError(t, c.RequestReviewers(ctx, owner, repo, pr.GetNumber(), "alice"))

	prs := srv.PullRequests(owner, repo)
	require.Len(t, prs, 1)
	assert.Equal(t, ghtest.PullRequest{Number: pr.GetNumber(), Title: "Fix the thing", Body: body, User: srv.BotLogin(),
		Head: head, Base: "main", Draft: true, State: "open", Reviewers: []string{"alice"}}, prs[0])

	_, err = c.UpdatePR(ctx, owner, repo, pr.GetNumber(), PRUpdate{})
	assert.Error(t, err, "nothing to change")
}

func TestReviewThreadAndReply(t *testing.T) {
	t.Parallel()
	srv, c, _ := setup(t, nil)
	ctx := t.Context()
	pr, err := c.CreatePR(ctx, owner, repo, NewPR{Title: "x", Head: "issuesmith/issue-1", Base: "main"})
	require.NoError(t, err)
	n := pr.GetNumber()
	root := srv.AddReviewComment(owner, repo, n, ghtest.ReviewComment{User: "alice", Path: "main.go", Line: 12, Body: "@issuesmith rename this"})
	other := srv.AddReviewComment(owner, repo, n, ghtest.ReviewComment{User: "bob", Path: "x.go", Line: 1, Body: "unrelated"})
	reply := srv.AddReviewComment(owner, repo, n, ghtest.ReviewComment{User: "bob", Path: "main.go", Line: 12, Body: "+1", InReplyTo: root})

	thread, err := c.ReviewThread(ctx, owner, repo, n, reply)
	require.NoError(t, err)
	require.Len(t, thread, 2)
	assert.Equal(t, root, thread[0].GetID())
	assert.Equal(t, reply, thread[1].GetID())
	assert.NotContains(t, []int64{thread[0].GetID(), thread[1].GetID()}, other)

	rc, err := c.ReplyToReviewComment(ctx, owner, repo, n, root, "Renamed in abc123.")
	require.NoError(t, err)
	assert.Equal(t, root, rc.GetInReplyTo())
	got, err := c.GetReviewComment(ctx, owner, repo, rc.GetID())
	require.NoError(t, err)
	assert.Equal(t, "Renamed in abc123.", got.GetBody())
	require.NoError(t, c.ReactReviewComment(ctx, owner, repo, root, ReactThumbsUp))

	_, err = c.ReviewThread(ctx, owner, repo, n, 999999)
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestFileContentAndIssue(t *testing.T) {
	t.Parallel()
	srv, c, _ := setup(t, nil)
	ctx := t.Context()
	srv.SetFile(owner, repo, "", ".github/issuesmith.yml", []byte("version: 1\n"))
	srv.SetFile(owner, repo, "dev", ".github/issuesmith.yml", []byte("version: 1\nlabel: x\n"))

	b, err := c.FileContent(ctx, owner, repo, ".github/issuesmith.yml", "")
	require.NoError(t, err)
	assert.Equal(t, "version: 1\n", string(b))
	b, err = c.FileContent(ctx, owner, repo, ".github/issuesmith.yml", "dev")
	require.NoError(t, err)
	assert.Equal(t, "version: 1\nlabel: x\n", string(b))
	_, err = c.FileContent(ctx, owner, repo, "missing.yml", "")
	assert.ErrorIs(t, err, ErrNotFound)

	n := srv.AddIssue(owner, repo, ghtest.Issue{Title: "Crash on empty input", Body: "steps", User: "alice"})
	is, err := c.GetIssue(ctx, owner, repo, n)
	require.NoError(t, err)
	assert.Equal(t, "Crash on empty input", is.GetTitle())
	_, err = c.GetIssue(ctx, owner, repo, 99)
	assert.ErrorIs(t, err, ErrNotFound)

	r, err := c.Repository(ctx, owner, repo)
	require.NoError(t, err)
	assert.Equal(t, "main", r.GetDefaultBranch())
}
