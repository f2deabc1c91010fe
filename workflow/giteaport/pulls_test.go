package giteaport_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/gitea"
	"github.com/issuesmith/issuesmith/gitea/giteatest"
	"github.com/issuesmith/issuesmith/workflow"
)

const branch = "issuesmith/issue-7"

func pull(title, head, state string) giteatest.Pull {
	return giteatest.Pull{Title: title, User: bot, Head: head, HeadSHA: headSHA, Base: "main", BaseSHA: baseSHA,
		State: state}
}

// FindPR takes the open pull request of the branch over closed ones, on
// every page of Gitea's list.
func TestFindPRPrefersTheOpenOne(t *testing.T) {
	t.Parallel()
	f := setup(t, func(o *gitea.Options) { o.PageSize = 2 })
	f.srv.AddPull(owner, repo, pull("old try", branch, "closed"))       // 1
	open := f.srv.AddPull(owner, repo, pull("the one", branch, "open")) // 2
	f.srv.AddPull(owner, repo, pull("later try", branch, "closed"))     // 3
	for i := range 4 {                                                  // 4..7: other branches, newest first in the list
		f.srv.AddPull(owner, repo, pull(fmt.Sprint("other ", i), fmt.Sprint("other-", i), "open"))
	}

	pr, err := f.g.FindPR(t.Context(), owner, repo, branch)
	require.NoError(t, err)
	assert.Equal(t, open, pr.Number)
	assert.Equal(t, "open", pr.State)
	assert.Equal(t, headSHA, pr.HeadSHA)
	assert.Equal(t, baseSHA, pr.BaseSHA)
	assert.Contains(t, pr.HTMLURL, "/octo/hello/pulls/2")
	assert.Equal(t, 4, f.srv.Calls(opListPulls), "every page of the 7 pull requests, 2 a page")
}

// Without an open one, the newest closed pull request of the branch;
// merged is reported.
func TestFindPRNewestClosed(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	f.srv.AddPull(owner, repo, pull("first", branch, "closed"))
	newest := f.srv.AddPull(owner, repo, giteatest.Pull{Title: "second", User: bot, Head: branch, HeadSHA: headSHA,
		Base: "main", BaseSHA: baseSHA, Merged: true})
	f.srv.AddPull(owner, repo, pull("elsewhere", "other", "open"))

	pr, err := f.g.FindPR(t.Context(), owner, repo, branch)
	require.NoError(t, err)
	assert.Equal(t, newest, pr.Number)
	assert.Equal(t, "closed", pr.State)
	assert.True(t, pr.Merged)
}

func TestFindPRNotFound(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	f.srv.AddPull(owner, repo, pull("elsewhere", "other", "open"))
	_, err := f.g.FindPR(t.Context(), owner, repo, branch)
	require.ErrorIs(t, err, workflow.ErrNotFound)
	assert.Contains(t, err.Error(), branch)
}

// A fork's branch ("owner:branch", push: fork) is not served on Gitea:
// ErrNotFound with the reason, and no request.
func TestFindPRForkHead(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	_, err := f.g.FindPR(t.Context(), owner, repo, "forker:"+branch)
	require.ErrorIs(t, err, workflow.ErrNotFound)
	assert.Contains(t, err.Error(), "pushing to forks is not served on Gitea")
	assert.Empty(t, f.srv.Requests())
}

// A draft is Gitea's "WIP: " title prefix, added once; GetPR reads Draft
// from the prefix with the head and base commits.
func TestCreatePRDraftByPrefix(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := t.Context()
	f.srv.SetBranch(owner, repo, branch, headSHA)
	for _, b := range []string{"b1", "b2", "b3"} {
		f.srv.SetBranch(owner, repo, b, headSHA)
	}

	pr, err := f.g.CreatePR(ctx, owner, repo, workflow.NewPR{Title: "Add a flag", Head: branch, Base: "main",
		Body: "Closes #7", Draft: true})
	require.NoError(t, err)
	assert.True(t, pr.Draft)
	assert.Equal(t, "open", pr.State)
	assert.Equal(t, headSHA, pr.HeadSHA)
	assert.Equal(t, baseSHA, pr.BaseSHA)

	for _, tc := range []struct {
		head, title string
		draft       bool
		want        string
	}{
		{"b1", "WIP: Already marked", true, "WIP: Already marked"},
		{"b2", "[WIP] Bracketed", true, "[WIP] Bracketed"},
		{"b3", "Ready now", false, "Ready now"},
	} {
		got, err := f.g.CreatePR(ctx, owner, repo, workflow.NewPR{Title: tc.title, Head: tc.head, Base: "main", Draft: tc.draft})
		require.NoError(t, err, tc.title)
		assert.Equal(t, tc.draft, got.Draft, tc.title)
	}

	want := map[int]string{1: "WIP: Add a flag", 2: "WIP: Already marked", 3: "[WIP] Bracketed", 4: "Ready now"}
	for _, p := range f.srv.Pulls(owner, repo) {
		assert.Equal(t, want[p.Number], p.Title)
		assert.Equal(t, bot, p.User)
	}
	assert.Equal(t, "Closes #7", f.srv.Pulls(owner, repo)[0].Body)

	got, err := f.g.GetPR(ctx, owner, repo, pr.Number)
	require.NoError(t, err)
	assert.Equal(t, *pr, *got)
}

func TestGetPR(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := t.Context()
	draft := f.srv.AddPull(owner, repo, pull("[wip] lower case", "a", "open"))
	ready := f.srv.AddPull(owner, repo, pull("Ready: not WIP: here", "b", "open"))

	pr, err := f.g.GetPR(ctx, owner, repo, draft)
	require.NoError(t, err)
	assert.True(t, pr.Draft)
	assert.Equal(t, headSHA, pr.HeadSHA)
	assert.Equal(t, baseSHA, pr.BaseSHA)
	pr, err = f.g.GetPR(ctx, owner, repo, ready)
	require.NoError(t, err)
	assert.False(t, pr.Draft)

	_, err = f.g.GetPR(ctx, owner, repo, 99)
	require.ErrorIs(t, err, workflow.ErrNotFound)
}

// MarkReady removes Gitea's work-in-progress prefix, in any case and
// spacing, and edits nothing on a pull request that is no draft.
func TestMarkReady(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := t.Context()
	for _, tc := range []struct{ title, want string }{
		{"WIP: Add a flag", "Add a flag"},
		{"[WIP] Add a flag", "Add a flag"},
		{"wip:Add a flag", "Add a flag"},
		{"  [wip]   Add a flag", "Add a flag"},
	} {
		n := f.srv.AddPull(owner, repo, pull(tc.title, fmt.Sprint("b-", tc.title), "open"))
		require.NoError(t, f.g.MarkReady(ctx, owner, repo, n), tc.title)
		p := f.srv.Pulls(owner, repo)[n-1]
		assert.Equal(t, tc.want, p.Title, tc.title)
		pr, err := f.g.GetPR(ctx, owner, repo, n)
		require.NoError(t, err)
		assert.False(t, pr.Draft, tc.title)
	}
	edits := f.srv.Calls(opEditPull)
	assert.Equal(t, 4, edits)

	n := f.srv.AddPull(owner, repo, pull("Add a flag (WIP: later)", "ready", "open"))
	require.NoError(t, f.g.MarkReady(ctx, owner, repo, n))
	assert.Equal(t, edits, f.srv.Calls(opEditPull), "a pull request that is no draft is not edited")
	assert.Equal(t, "Add a flag (WIP: later)", f.srv.Pulls(owner, repo)[n-1].Title)

	require.ErrorIs(t, f.g.MarkReady(ctx, owner, repo, 99), workflow.ErrNotFound)
}

func TestRequestReviewers(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	f.srv.AddUser("alice", false)
	f.srv.AddUser("bob", false)
	n := f.srv.AddPull(owner, repo, pull("WIP: x", branch, "open"))

	require.NoError(t, f.g.RequestReviewers(t.Context(), owner, repo, n, "alice", "bob"))
	assert.Equal(t, []string{"alice", "bob"}, f.srv.Pulls(owner, repo)[0].RequestedReviews)

	err := f.g.RequestReviewers(t.Context(), owner, repo, n, "nobody")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "user does not exist")
	require.ErrorIs(t, f.g.RequestReviewers(t.Context(), owner, repo, 99, "alice"), workflow.ErrNotFound)
}
