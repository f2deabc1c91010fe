package workflow_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/workflow"
)

// A /stop on an issue with nothing running gets one reply saying so, also
// when GitHub delivers the comment again.
func TestStopWithNothingRunningRepliesOnce(t *testing.T) {
	h := newHarness(t, &agents{})
	stop := func(ev *workflow.Event) { ev.Body, ev.CommentID = "/stop", 4242 }
	require.NoError(t, h.event(workflow.CommandGiven, stop))
	h.eventually(func() bool { return len(h.botComments()["stop-idle"]) == 1 }, "no reply to /stop")
	require.NoError(t, h.event(workflow.CommandGiven, stop)) // redelivery
	h.waitJobsDone("issuesmith_idle_stop")                   // a second job would have run
	replies := h.botComments()["stop-idle"]
	require.Len(t, replies, 1)
	require.Contains(t, strings.ToLower(replies[0].Body), "nothing is running for this issue")
	require.Contains(t, replies[0].Body, "@alice")
	require.Len(t, h.gh.Comments(owner, name, h.issue), 1, "only the reply")
}
