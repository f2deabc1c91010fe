package coder

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/work"
)

// needServer skips when a language server is not installed, and fails
// instead when ISSUESMITH_REQUIRE_LSP is set (CI installs them).
func needServer(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("ISSUESMITH_REQUIRE_LSP") != "" {
			t.Fatalf("%s not on PATH and ISSUESMITH_REQUIRE_LSP is set: %v", name, err)
		}
		t.Skipf("%s not installed (see README: language servers); skipping", name)
	}
}

// TestDiagnosticsFedBack runs the coder with the real language servers: an
// edit that adds an error gets exactly that error back in the model's next
// prompt; fixed, nothing is left; unfixed, it is left in the result, its
// report and the PR summary.
func TestDiagnosticsFedBack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		script, server, path string
		files                map[string]string
		want                 string // the one new error, as fed back
		left                 bool
	}{
		{"lsp_go", "gopls", "calc.go", map[string]string{"go.mod": "module example.com/calc\n\ngo 1.22\n", "calc.go": calcGo},
			`calc.go:5:9: invalid operation: a + "b" (mismatched types int and untyped string)`, false},
		{"lsp_ts", "typescript-language-server", "src/calc.ts", map[string]string{
			"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}}` + "\n",
			"src/calc.ts":   "export function add(a: number, b: number): number {\n  return a + b;\n}\n"},
			"src/calc.ts:2:9: Type 'number' is not assignable to type 'string'.", false},
		{"lsp_py", "pyright-langserver", "calc.py", map[string]string{"calc.py": "def add(a, b):\n    return a + b\n"},
			`calc.py:2:16: "c" is not defined`, true},
	} {
		t.Run(tc.script, func(t *testing.T) {
			t.Parallel()
			needServer(t, tc.server)
			ws := fixture(t, tc.files)
			// The language server alone: the default Python checks (pyflakes) would
			// catch the same undefined name and ask for a check round the script has not.
			c, srv := scripted(t, tc.script, Options{SkipGoChecks: true, SkipPythonChecks: true, Diagnostics: true,
				DiagnosticsWait: 60 * time.Second})
			res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "t"},
				&work.Plan{Items: []work.Item{item(tc.path, work.ActionModify, "Change it.")}})
			require.NoError(t, err)
			require.Zero(t, srv.Remaining())
			fb := srv.Requests()[1].Last().Content
			var listed []string
			for _, l := range strings.Split(fb, "\n") {
				if strings.HasPrefix(l, "- ") {
					listed = append(listed, strings.TrimPrefix(l, "- "))
				}
			}
			require.Equal(t, []string{tc.want}, listed, "feedback:\n%s", fb)
			require.Equal(t, ItemDone, itemByPath(t, res, tc.path).Status)
			if !tc.left {
				require.Empty(t, res.Diagnostics)
				return
			}
			require.Len(t, res.Diagnostics, 1)
			require.Equal(t, tc.want, res.Diagnostics[0].String())
			require.Contains(t, res.Report(), "diagnostic left: "+tc.want)
			require.Contains(t, res.Summary, tc.want)
		})
	}
}

// TestReviseDiagnosticsFedBack: a review-comment run asks the language
// servers too: the error its edit added goes back to the model, which
// fixes it, and none is left.
func TestReviseDiagnosticsFedBack(t *testing.T) {
	t.Parallel()
	needServer(t, "gopls")
	ws := fixture(t, map[string]string{"go.mod": "module example.com/calc\n\ngo 1.22\n", "calc.go": calcGo})
	c, srv := scripted(t, "lsp_go", Options{SkipGoChecks: true, Diagnostics: true, DiagnosticsWait: 60 * time.Second})
	res, err := c.Revise(t.Context(), ws, ReviewRequest{Path: "calc.go", Lines: LineRange{Start: 5, End: 5}, Comment: "Swap the operands."})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	require.Contains(t, srv.Requests()[1].Last().Content,
		`- calc.go:5:9: invalid operation: a + "b" (mismatched types int and untyped string)`)
	require.Equal(t, ItemDone, itemByPath(t, res, "calc.go").Status)
	require.Empty(t, res.Diagnostics)
	require.Contains(t, readFile(t, ws, "calc.go"), "return b + a")
}

// TestApplyModelRefusedOnNewDiagnostic: the apply model's rewrite parses
// but adds a type error the language server reports: it is not kept, and
// the error is not counted as left by the run.
func TestApplyModelRefusedOnNewDiagnostic(t *testing.T) {
	t.Parallel()
	needServer(t, "gopls")
	ws := fixture(t, map[string]string{"go.mod": "module example.com/calc\n\ngo 1.22\n", "calc.go": calcTwo})
	c, srv := applyScripted(t, "apply_model_lsp", Options{Attempts: 1, SkipGoChecks: true, ApplyModel: true,
		Diagnostics: true, DiagnosticsWait: 60 * time.Second})
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "t"},
		&work.Plan{Items: []work.Item{item("calc.go", work.ActionModify, "Make `Add` return 0 for a negative first argument.")}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	require.Equal(t, calcTwo, readFile(t, ws, "calc.go"))
	it := itemByPath(t, res, "calc.go")
	require.Equal(t, ItemFailed, it.Status)
	require.Contains(t, strings.Join(it.Notes, "\n"), "not rescued by the apply model: the language server reports 1 new error(s), first: calc.go:6:10:")
	require.Empty(t, res.Diagnostics)
}
