package workflow

import (
	"testing"

	"github.com/stretchr/testify/require"
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
