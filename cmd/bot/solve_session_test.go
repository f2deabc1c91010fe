package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

// --session writes the run as JSON lines: the session, each model call
// under its stage (explore, plan, code), the edits with their diffs, the
// checks, the system prompts once, and the end.
func TestSolveWritesTheSession(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "run.jsonl")
	runGoodbye(t, goodbyeTree(t), "--session", file)
	fh, err := os.Open(file)
	require.NoError(t, err)
	defer fh.Close()
	var lines []session.Line
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var l session.Line
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), sc.Text())
		lines = append(lines, l)
	}
	require.NoError(t, sc.Err())
	require.NotNil(t, lines[0].Session)
	require.Equal(t, store.StateDone, lines[len(lines)-1].End)
	calls := map[string]int{}
	var edits, checks, blobs int
	diffSeen := false
	for _, l := range lines {
		switch {
		case l.Blob != nil:
			blobs++
		case l.Event != nil && l.Event.Model != nil:
			calls[l.Event.Stage]++
		case l.Event != nil && l.Event.Edit != nil:
			edits++
			diffSeen = diffSeen || l.Event.Edit.Diff != ""
		case l.Event != nil && l.Event.Check != nil:
			checks++
		}
	}
	require.Equal(t, 6, calls[session.StageExplore]+calls[session.StagePlan]+calls[session.StageCode], "%v", calls)
	require.Positive(t, calls[session.StageExplore])
	require.Positive(t, calls[session.StagePlan])
	require.Positive(t, calls[session.StageCode])
	require.Positive(t, edits)
	require.True(t, diffSeen)
	require.Positive(t, checks)
	require.Positive(t, blobs)
}
