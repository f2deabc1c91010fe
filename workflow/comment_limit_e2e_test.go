package workflow_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/workflow"
)

// An explorer that writes more than a GitHub comment holds (here: the
// issue's long title quoted in the spec) gets its spec posted cut, with a
// visible note, and the run carries on to the plan. The fake GitHub
// refuses a body over the limit as GitHub does, failing the test.
func TestHugeSpecIsCutToGitHubsLimit(t *testing.T) {
	h := newHarness(t, &agents{})
	h.issue = h.gh.AddIssue(owner, name, ghtest.Issue{Title: strings.Repeat("very long title ", 5000), Body: "b",
		User: "alice", Labels: []string{"issuesmith"}})
	require.NoError(t, h.event(workflow.Labeled))
	h.waitRun("approval", waitingForApproval)
	c := h.botComments()
	require.Len(t, c["spec"], 1)
	require.LessOrEqual(t, utf8.RuneCountInString(c["spec"][0].Body), ghtest.MaxBody)
	require.Contains(t, c["spec"][0].Body, "(cut: ")
	require.Len(t, c["plan"], 1)
}
