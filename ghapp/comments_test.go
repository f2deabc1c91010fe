package ghapp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUpsertCommentCreatesThenEditsInPlace(t *testing.T) {
	t.Parallel()
	srv, c, _ := setup(t, nil)
	n := srv.AddIssue(owner, repo, ghtest.Issue{Title: "t", User: "alice"})
	// A user quoting the marker must not be taken for the bot's comment.
	srv.AddComment(owner, repo, n, "mallory", ghtext.Marker{Kind: "plan"}.String()+"\nnot the bot")
	ctx := t.Context()

	ic, err := c.UpsertComment(ctx, owner, repo, n, ghtext.Marker{Kind: "plan", Run: "r1"}, "first plan")
	require.NoError(t, err)
	m, ok := ghtext.ParseMarker(ic.GetBody())
	require.True(t, ok)
	assert.Equal(t, ghtext.Marker{Kind: "plan", Run: "r1", Version: 1}, m)

	ic2, err := c.UpsertComment(ctx, owner, repo, n, ghtext.Marker{Kind: "plan"}, "second plan")
	require.NoError(t, err)
	assert.Equal(t, ic.GetID(), ic2.GetID(), "edited in place")
	got, _ := srv.Comment(ic.GetID())
	assert.Equal(t, "<!-- issuesmith:plan run=r1 v=2 -->\nsecond plan", got.Body)
	assert.Equal(t, 1, got.Edits)

	// The same text again is not sent to GitHub at all.
	patches := srv.Calls("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}")
	_, err = c.UpsertComment(ctx, owner, repo, n, ghtext.Marker{Kind: "plan"}, "second plan")
	require.NoError(t, err)
	assert.Equal(t, patches, srv.Calls("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}"))

	// Another kind is another comment.
	_, err = c.UpsertComment(ctx, owner, repo, n, ghtext.Marker{Kind: "spec", Run: "r1"}, "the spec")
	require.NoError(t, err)
	cs := srv.Comments(owner, repo, n)
	require.Len(t, cs, 3)
	assert.Equal(t, "mallory", cs[0].User)
	assert.Equal(t, srv.BotLogin(), cs[2].User)
	assert.True(t, strings.HasPrefix(cs[2].Body, "<!-- issuesmith:spec run=r1 v=1 -->"))
}

func TestFindCommentFollowsPages(t *testing.T) {
	t.Parallel()
	srv, c, _ := setup(t, nil)
	n := srv.AddIssue(owner, repo, ghtest.Issue{Title: "busy", User: "alice"})
	for i := range 130 {
		srv.AddComment(owner, repo, n, "alice", fmt.Sprintf("comment %d", i))
	}
	_, err := c.UpsertComment(t.Context(), owner, repo, n, ghtext.Marker{Kind: "progress", Run: "r9"}, "working")
	require.NoError(t, err)

	ic, m, err := c.FindComment(t.Context(), owner, repo, n, ghtext.Marker{Kind: "progress"})
	require.NoError(t, err)
	assert.Equal(t, "r9", m.Run)
	assert.Contains(t, ic.GetBody(), "working")
	assert.GreaterOrEqual(t, srv.Calls("GET /repos/{owner}/{repo}/issues/{issue_number}/comments"), 4, "two lists of two pages")

	_, _, err = c.FindComment(t.Context(), owner, repo, n, ghtext.Marker{Kind: "progress", Run: "other"})
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestReactionsAndLabels(t *testing.T) {
	t.Parallel()
	srv, c, _ := setup(t, nil)
	ctx := t.Context()
	n := srv.AddIssue(owner, repo, ghtest.Issue{Title: "t", User: "alice", Labels: []string{"issuesmith", "bug"}})
	id := srv.AddComment(owner, repo, n, "alice", "/plan")

	require.NoError(t, c.React(ctx, owner, repo, id, ReactEyes))
	require.NoError(t, c.React(ctx, owner, repo, id, ReactEyes), "repeating is harmless")
	require.NoError(t, c.ReactIssue(ctx, owner, repo, n, ReactRocket))
	got, _ := srv.Comment(id)
	assert.Equal(t, []string{srv.BotLogin() + ":eyes"}, got.Reactions)

	require.NoError(t, c.AddLabels(ctx, owner, repo, n, "issuesmith:running"))
	require.NoError(t, c.RemoveLabel(ctx, owner, repo, n, "issuesmith"))
	require.NoError(t, c.RemoveLabel(ctx, owner, repo, n, "issuesmith"), "already gone is fine")
	is, _ := srv.Issue(owner, repo, n)
	assert.Equal(t, []string{"bug", "issuesmith:running"}, is.Labels)
	assert.Equal(t, []string{srv.BotLogin() + ":rocket"}, is.Reactions)
}
