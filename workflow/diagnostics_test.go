package workflow_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The language-server errors the coder left are listed in the progress
// comment at the end, under the plan items: a short list, each a code span
// (foreign text: backticks inside cannot end it).
func TestProgressListsDiagnosticsLeft(t *testing.T) {
	t.Parallel()
	var diags []string
	for i := range 7 {
		diags = append(diags, "greet.go:"+string(rune('1'+i))+":2: undefined: `name`")
	}
	h := newHarness(t, &agents{diags: diags})
	h.openPR()
	h.waitProgress("issuesmith: done")
	body := h.botComments()["progress"][0].Body
	require.Contains(t, body, "  - language-server errors left: 7\n"+
		"    - `` greet.go:1:2: undefined: `name` ``\n", body)
	require.Contains(t, body, "    - `` greet.go:5:2: undefined: `name` ``\n    - … and 2 more\n")
	require.NotContains(t, body, "greet.go:6:2")
	require.Less(t, strings.Index(body, "greet_test.go` — done"), strings.Index(body, "language-server errors left"))
}
