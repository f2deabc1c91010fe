package coder

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/work"
)

// TestImplementLineRanges: read_file shows the hash of the lines it
// returned; an edit_lines call one line off is refused with where the
// quoted lines are, and the retry over exactly the lines read, proven by
// the hash, applies.
func TestImplementLineRanges(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{"calc.go": calcGo})
	c, srv := scripted(t, "lines_tool", Options{SkipGoChecks: true})
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "swap"},
		&work.Plan{Items: []work.Item{item("calc.go", work.ActionModify, "Return b + a in `Add`.")}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	it := itemByPath(t, res, "calc.go")
	require.Equal(t, ItemDone, it.Status)
	require.Equal(t, 2, it.Attempts)
	require.Equal(t, strings.Replace(calcGo, "a + b\n}", "b + a\n}", 1), readFile(t, ws, "calc.go"))
	require.Contains(t, srv.Requests()[0].Messages[0].Content, "<replace-lines")
	refusal := srv.Requests()[2].Last().Content
	require.Contains(t, refusal, "REFUSED (stale)")
	require.Contains(t, refusal, `resend with start="4" end="5"`)
}

// TestImplementLineRangesOff: with line edits switched off the prompt and
// the tools do not offer them and a <replace-lines> answer is refused.
func TestImplementLineRangesOff(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{"calc.go": calcGo})
	c, srv := scripted(t, "lines_off", Options{SkipGoChecks: true, NoLineEdits: true, Attempts: 2})
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "swap"},
		&work.Plan{Items: []work.Item{item("calc.go", work.ActionModify, "Return b + a in `Add`.")}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	require.Equal(t, ItemDone, itemByPath(t, res, "calc.go").Status)
	first := srv.Requests()[0]
	require.NotContains(t, first.Messages[0].Content, "<replace-lines")
	require.NotContains(t, first.Tools, "edit_lines")
	require.Contains(t, srv.Requests()[1].Last().Content, "line ranges are switched off")
	require.Contains(t, readFile(t, ws, "calc.go"), "return b + a")
}
