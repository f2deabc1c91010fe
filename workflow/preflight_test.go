package workflow_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/internal/sandbox"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow"
)

// A run started while the bot's disk is below its free-space floor is
// refused with a comment before anything is cloned or explored, and the
// next run works once there is room again.
func TestARunBelowTheFreeSpaceFloorIsRefusedWithAComment(t *testing.T) {
	t.Parallel()
	var explored atomic.Int32
	ag := &agents{onExplore: func() { explored.Add(1) }}
	h := newHarness(t, ag)
	h.stop(10 * time.Second)
	var floor atomic.Int64
	floor.Store(1 << 62) // more than any disk has free
	h.preflight = func(context.Context) error { return sandbox.CheckSpace(t.TempDir(), floor.Load()) }
	h.start()
	require.NoError(t, h.event(workflow.Labeled))
	run := h.waitRun("refused", func(r *store.Run) bool { return !r.Open() })
	require.Equal(t, store.StateFailed, run.State)
	require.Contains(t, run.Reason, "not started: the bot's disk has")
	require.Contains(t, run.Reason, "ISSUESMITH_MIN_FREE_SPACE")
	h.waitProgress("below the")
	require.Zero(t, explored.Load(), "nothing was explored")

	floor.Store(1) // the operator freed space
	require.NoError(t, h.event(workflow.CommandGiven, func(ev *workflow.Event) { ev.Body = "/retry" }))
	h.waitRun("approval", waitingForApproval)
	require.Positive(t, explored.Load())
}
