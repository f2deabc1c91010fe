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
			c, srv := scripted(t, tc.script, Options{SkipGoChecks: true, Diagnostics: true, DiagnosticsWait: 60 * time.Second})
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
