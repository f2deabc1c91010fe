package replay

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/work"
)

// The run's course reaches the printers as work.Events: Lines prints the
// size and each finished instance with its count, Bar draws what each
// running instance is doing and counts the resolved ones.
func TestPrintersHearTheRunsEvents(t *testing.T) {
	t.Parallel()
	start := work.Event{Kind: work.EventCount, Stage: "instances", Count: 1, Of: 3}
	stage := work.Event{Kind: work.EventStage, ID: "acme__calc-7", Stage: "solve"}
	done := DoneEvent(Result{ID: "acme__calc-7", Status: StatusResolved, Wall: 12, Reason: "tests pass", Limits: []string{"x: why"}})

	var lines bytes.Buffer
	l := &Lines{W: &lines}
	for _, ev := range []work.Event{start, stage, done} {
		l.Hear(ev)
	}
	require.Equal(t, "replay: 3 instances, 1 already in the results file\n"+
		"replay: [2/3] acme__calc-7 resolved (12s) tests pass; limits: x: why\n", lines.String())

	var bar bytes.Buffer
	b := &Bar{W: &bar}
	b.Hear(start)
	b.Hear(stage)
	require.Contains(t, bar.String(), "] 1/3 resolved 0  acme__calc-7 solve")
	b.Hear(done)
	require.Contains(t, bar.String(), "\r\033[Kacme__calc-7 resolved (12s) tests pass; limits: x: why\n")
	require.Contains(t, bar.String(), "] 2/3 resolved 1  ")
}
