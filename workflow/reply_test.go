package workflow

import (
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/work"
)

// The coder's summary in a review reply is the model's text: it must not
// mention a team or close another issue when the PR merges.
func TestReplyTextDefusesModelText(t *testing.T) {
	t.Parallel()
	got := replyText(&reviseRecord{SHA: "abc123", Summary: "Renamed greet. cc @acme/owners, fixes #3"})
	require.Contains(t, got, "Done in abc123.")
	require.NotContains(t, got, "@acme")
	require.NotContains(t, got, "fixes #3")
	got = replyText(&reviseRecord{Failure: "the model said @everyone <!-- x"})
	require.NotContains(t, got, "@everyone")
	require.NotContains(t, got, "<!--")
}

// A marker in another bot's comment (an App echoing a user's text) is not
// the bot's reply: the bot still answers.
func TestHasReplyCountsOnlyTheBot(t *testing.T) {
	t.Parallel()
	m := ghtext.Marker{Kind: kindReply, Run: "r1", Version: 7}
	comment := func(login string) *github.PullRequestComment {
		return &github.PullRequestComment{User: &github.User{Login: github.String(login), Type: github.String("Bot")},
			Body: github.String(ghtext.WithMarker("echo", m))}
	}
	require.False(t, hasReply([]*github.PullRequestComment{comment("echo[bot]")}, m, "issuesmith[bot]"))
	require.True(t, hasReply([]*github.PullRequestComment{comment("echo[bot]"), comment("issuesmith[bot]")}, m, "issuesmith[bot]"))
}

// The commit title is the spec's topic: a model writing "fixes #4" there
// must not close issue 4 when the commit reaches the default branch.
func TestCommitMessageClosesNothing(t *testing.T) {
	t.Parallel()
	msg := commitMessage(12, &work.Spec{Topic: "Greet politely, fixes #4"})
	require.NotContains(t, strings.ToLower(msg), "fixes #4")
	require.Contains(t, msg, "Implements the approved plan for #12.")
}
