package workflow

import (
	"strings"
	"testing"

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
	comment := func(login string, isBot bool) DiffComment {
		return DiffComment{Author: login, AuthorIsBot: isBot, Body: ghtext.WithMarker("echo", m)}
	}
	require.False(t, hasReply([]DiffComment{comment("echo[bot]", true)}, m, "issuesmith[bot]"))
	require.False(t, hasReply([]DiffComment{comment("issuesmith[bot]", false)}, m, "issuesmith[bot]"))
	require.True(t, hasReply([]DiffComment{comment("echo[bot]", true), comment("issuesmith[bot]", true)}, m, "issuesmith[bot]"))
}

// The commit title is the spec's topic: a model writing "fixes #4" there
// must not close issue 4 when the commit reaches the default branch.
func TestCommitMessageClosesNothing(t *testing.T) {
	t.Parallel()
	msg := commitMessage(12, &work.Spec{Topic: "Greet politely, fixes #4"})
	require.NotContains(t, strings.ToLower(msg), "fixes #4")
	require.Contains(t, msg, "Implements the approved plan for #12.")
}
