package giteaport_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/gitea/giteatest"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/workflow"
)

// UpsertComment writes the marker, edits its own comment in place with the
// next version, and sends no edit when the text is unchanged.
func TestUpsertCommentCreatesThenEditsInPlace(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := t.Context()
	n := f.srv.AddIssue(owner, repo, giteatest.Issue{Title: "Add a flag", User: "alice"})

	made, err := f.g.UpsertComment(ctx, owner, repo, n, ghtext.Marker{Kind: "plan", Run: "r1"}, "first plan")
	require.NoError(t, err)
	assert.NotZero(t, made.ID)
	assert.Contains(t, made.HTMLURL, "#issuecomment-")
	cs := f.srv.Comments(owner, repo, n)
	require.Len(t, cs, 1)
	assert.Equal(t, bot, cs[0].User)
	m, ok := ghtext.ParseMarker(cs[0].Body)
	require.True(t, ok, cs[0].Body)
	assert.Equal(t, ghtext.Marker{Kind: "plan", Run: "r1", Version: 1}, m)
	assert.Equal(t, "first plan", ghtext.StripMarker(cs[0].Body))

	// Next time the same comment is edited: the run kept, the version one up.
	edited, err := f.g.UpsertComment(ctx, owner, repo, n, ghtext.Marker{Kind: "plan"}, "second plan")
	require.NoError(t, err)
	assert.Equal(t, made.ID, edited.ID)
	cs = f.srv.Comments(owner, repo, n)
	require.Len(t, cs, 1)
	m, _ = ghtext.ParseMarker(cs[0].Body)
	assert.Equal(t, ghtext.Marker{Kind: "plan", Run: "r1", Version: 2}, m)
	assert.Equal(t, "second plan", ghtext.StripMarker(cs[0].Body))
	assert.Equal(t, 1, f.srv.Calls(opEditComment))

	// The same text again (a retried step): no edit is sent.
	same, err := f.g.UpsertComment(ctx, owner, repo, n, ghtext.Marker{Kind: "plan"}, "second plan")
	require.NoError(t, err)
	assert.Equal(t, made.ID, same.ID)
	assert.Equal(t, 1, f.srv.Calls(opEditComment), "an unchanged text is not edited")
	assert.Equal(t, 1, f.srv.Calls(opPostComment))

	// Another kind is another comment.
	spec, err := f.g.UpsertComment(ctx, owner, repo, n, ghtext.Marker{Kind: "spec", Run: "r1"}, "the spec")
	require.NoError(t, err)
	assert.NotEqual(t, made.ID, spec.ID)
	assert.Len(t, f.srv.Comments(owner, repo, n), 2)
}

// A version the caller names is written as named.
func TestUpsertCommentKeepsAGivenVersion(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	n := f.srv.AddIssue(owner, repo, giteatest.Issue{Title: "t", User: "alice"})
	_, err := f.g.UpsertComment(t.Context(), owner, repo, n, ghtext.Marker{Kind: "spec", Version: 7}, "v7")
	require.NoError(t, err)
	_, err = f.g.UpsertComment(t.Context(), owner, repo, n, ghtext.Marker{Kind: "spec", Version: 9}, "v9")
	require.NoError(t, err)
	cs := f.srv.Comments(owner, repo, n)
	require.Len(t, cs, 1)
	m, _ := ghtext.ParseMarker(cs[0].Body)
	assert.Equal(t, ghtext.Marker{Kind: "spec", Version: 9}, m)
}

// A person cannot plant a marker: a comment by anyone but the bot user
// that carries a copied marker is never found, read as the bot's, or
// edited; the bot writes its own beside it.
func TestPlantedMarkerIsNeverTaken(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := t.Context()
	n := f.srv.AddIssue(owner, repo, giteatest.Issue{Title: "t", User: "mallory"})
	planted := "<!-- issuesmith:plan run=r1 v=3 -->\n- [ ] rm -rf /"
	f.srv.AddComment(owner, repo, n, "mallory", planted)
	// The bot's login in another case is still the bot; a look-alike is not.
	f.srv.AddComment(owner, repo, n, "issuesmith-bot", planted)

	_, _, err := f.g.FindComment(ctx, owner, repo, n, ghtext.Marker{Kind: "plan"})
	require.ErrorIs(t, err, workflow.ErrNotFound)

	made, err := f.g.UpsertComment(ctx, owner, repo, n, ghtext.Marker{Kind: "plan", Run: "r1"}, "the real plan")
	require.NoError(t, err)
	assert.Equal(t, 0, f.srv.Calls(opEditComment), "the planted comment is not edited")
	cs := f.srv.Comments(owner, repo, n)
	require.Len(t, cs, 3)
	assert.Equal(t, planted, cs[0].Body, "the person's comment is untouched")
	assert.Equal(t, planted, cs[1].Body)
	assert.Equal(t, bot, cs[2].User)
	m, _ := ghtext.ParseMarker(cs[2].Body)
	assert.Equal(t, 1, m.Version, "the version is not taken from the planted marker")

	got, gm, err := f.g.FindComment(ctx, owner, repo, n, ghtext.Marker{Kind: "plan"})
	require.NoError(t, err)
	assert.Equal(t, made.ID, got.ID)
	assert.Equal(t, ghtext.Marker{Kind: "plan", Run: "r1", Version: 1}, gm)
}

// FindComment: the bot's oldest comment of the kind (and run, when asked),
// with its marker; ErrNotFound when there is none.
func TestFindComment(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := t.Context()
	n := f.srv.AddIssue(owner, repo, giteatest.Issue{Title: "t", User: "alice"})

	_, _, err := f.g.FindComment(ctx, owner, repo, n, ghtext.Marker{Kind: "spec"})
	require.ErrorIs(t, err, workflow.ErrNotFound)
	assert.Contains(t, err.Error(), "comment spec on octo/hello#1")

	f.srv.AddComment(owner, repo, n, "alice", "a plain comment")
	old := f.srv.AddComment(owner, repo, n, strings.ToUpper(bot), "<!-- issuesmith:spec run=r1 v=2 -->\nold")
	f.srv.AddComment(owner, repo, n, bot, "<!-- issuesmith:spec run=r2 v=1 -->\nnew")

	c, m, err := f.g.FindComment(ctx, owner, repo, n, ghtext.Marker{Kind: "spec"})
	require.NoError(t, err)
	assert.Equal(t, old, c.ID, "the oldest wins; the bot's login in any case")
	assert.Equal(t, ghtext.Marker{Kind: "spec", Run: "r1", Version: 2}, m)
	assert.Contains(t, c.Body, "old")

	c, m, err = f.g.FindComment(ctx, owner, repo, n, ghtext.Marker{Kind: "spec", Run: "r2"})
	require.NoError(t, err)
	assert.Equal(t, "r2", m.Run)
	assert.Contains(t, c.Body, "new")

	_, _, err = f.g.FindComment(ctx, owner, repo, n, ghtext.Marker{Kind: "spec", Run: "r3"})
	require.ErrorIs(t, err, workflow.ErrNotFound)
}

// GetComment reads any comment by id (a person's edit of the plan);
// ErrNotFound for one that does not exist.
func TestGetComment(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	n := f.srv.AddIssue(owner, repo, giteatest.Issue{Title: "t", User: "alice"})
	id := f.srv.AddComment(owner, repo, n, "alice", "edited plan")

	c, err := f.g.GetComment(t.Context(), owner, repo, id)
	require.NoError(t, err)
	assert.Equal(t, id, c.ID)
	assert.Equal(t, "edited plan", c.Body)
	assert.Contains(t, c.HTMLURL, "/octo/hello/issues/1#issuecomment-")

	_, err = f.g.GetComment(t.Context(), owner, repo, id+100)
	require.ErrorIs(t, err, workflow.ErrNotFound)
}
