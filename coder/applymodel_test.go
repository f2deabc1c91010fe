package coder

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/work"
)

const calcTwo = `package calc

// Add returns the sum.
func Add(x, y int) int {
	return x + y
}

// Sub returns the difference.
func Sub(x, y int) int {
	return x - y
}
`

// applyScripted is scripted with the apply role on a model of its own.
func applyScripted(t *testing.T, name string, opts Options) (*Coder, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, filepath.Join("testdata", name+".yaml")))
	client, err := llm.NewClient(llm.Config{BaseURL: srv.URL(), Model: "test-coder",
		Roles: map[llm.Role]llm.RoleConfig{llm.RoleApply: {Model: "test-apply"}}})
	require.NoError(t, err)
	c, err := New(client, opts)
	require.NoError(t, err)
	return c, srv
}

func implementCalc(t *testing.T, c *Coder) (*Result, string) {
	t.Helper()
	ws := fixture(t, map[string]string{"calc.go": calcTwo})
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "t"},
		&work.Plan{Items: []work.Item{item("calc.go", work.ActionModify, "Make `Add` return 0 for a negative first argument.")}})
	require.NoError(t, err)
	return res, readFile(t, ws, "calc.go")
}

// TestApplyModelRescuesRefusedSketch: the lazy merge refuses the sketch on
// the item's last attempt; the apply model rewrites the enclosing function
// only, and the item is done with exactly that change.
func TestApplyModelRescuesRefusedSketch(t *testing.T) {
	t.Parallel()
	c, srv := applyScripted(t, "apply_model", Options{Attempts: 1, SkipGoChecks: true, ApplyModel: true})
	res, got := implementCalc(t, c)
	require.Zero(t, srv.Remaining())
	want := strings.Replace(calcTwo, "\treturn x + y\n", "\tif x < 0 {\n\t\treturn 0\n\t}\n\treturn x + y\n", 1)
	require.Equal(t, want, got)
	it := itemByPath(t, res, "calc.go")
	require.Equal(t, ItemDone, it.Status, "%+v", it)
	require.Equal(t, 1, it.Attempts)
	require.Contains(t, strings.Join(it.Notes, "\n"), "block 1 rewritten by the apply model in lines 4–6 (the sketch's anchors)")
	require.Contains(t, kinds(res), "apply-model")
	// The apply model saw the region and the sketch, nothing else of the file.
	ask := srv.Requests()[1]
	require.Equal(t, "apply", ask.Role)
	require.Contains(t, ask.Last().Content, "func Add(x, y int) int {\n\treturn x + y\n}\n")
	require.Contains(t, ask.Last().Content, "func Add(a, b int) int {")
	require.NotContains(t, ask.Last().Content, "Sub")
	require.Contains(t, res.Changes.Files[0].Diff, "+\tif x < 0 {")
	require.Equal(t, []string{"calc.go lines 4–6"}, res.Rewritten)
	require.Contains(t, res.Summary, "Written by the apply model from an edit the engine refused (read these closely): calc.go lines 4–6.")
}

// TestApplyModelOnlyAfterTheRetries: the apply model is asked after the
// item's last attempt, not after an earlier refusal (the script's order
// fails the test otherwise).
func TestApplyModelOnlyAfterTheRetries(t *testing.T) {
	t.Parallel()
	c, srv := applyScripted(t, "apply_model_retry", Options{Attempts: 2, SkipGoChecks: true, ApplyModel: true})
	res, _ := implementCalc(t, c)
	require.Zero(t, srv.Remaining())
	it := itemByPath(t, res, "calc.go")
	require.Equal(t, ItemDone, it.Status)
	require.Equal(t, 2, it.Attempts)
}

// TestApplyModelRescuesRefusedSearchBlock: a SEARCH block quoting a line
// the file lacks is refused; the apply model rewrites the function it meant.
func TestApplyModelRescuesRefusedSearchBlock(t *testing.T) {
	t.Parallel()
	c, srv := applyScripted(t, "apply_model_search", Options{Attempts: 1, SkipGoChecks: true, ApplyModel: true})
	res, got := implementCalc(t, c)
	require.Zero(t, srv.Remaining())
	require.Equal(t, strings.Replace(calcTwo, "\treturn x + y\n", "\tif x < 0 {\n\t\treturn 0\n\t}\n\treturn x + y\n", 1), got)
	require.Equal(t, ItemDone, itemByPath(t, res, "calc.go").Status)
}

// TestApplyModelRefusals: a rewrite that reaches outside the region or
// breaks the syntax is never kept; with the switch off the apply model is
// never asked.
func TestApplyModelRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		script string
		on     bool
		why    string
	}{
		{"apply_model_outside", true, "the rewrite defines function Sub again, which the file defines outside the region (line 9)"},
		{"apply_model_syntax", true, "the rewrite has 2 syntax error(s), the file had 0"},
		{"apply_model_off", false, ""},
	} {
		t.Run(tc.script, func(t *testing.T) {
			t.Parallel()
			c, srv := applyScripted(t, tc.script, Options{Attempts: 1, SkipGoChecks: true, ApplyModel: tc.on})
			res, got := implementCalc(t, c)
			require.Equal(t, calcTwo, got, "nothing is written")
			it := itemByPath(t, res, "calc.go")
			require.Equal(t, ItemFailed, it.Status)
			if !tc.on {
				for _, r := range srv.Requests() {
					require.NotEqual(t, "apply", r.Role)
				}
				require.NotContains(t, kinds(res), "apply-model")
				return
			}
			require.Zero(t, srv.Remaining())
			require.Contains(t, strings.Join(it.Notes, "\n"), "not rescued by the apply model: "+tc.why)
			require.Contains(t, it.Reason, "the apply model did not rescue it: "+tc.why)
		})
	}
}
