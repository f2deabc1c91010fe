package lsp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// needServer skips the test when srv's command is not installed, and fails
// it instead when ISSUESMITH_REQUIRE_LSP is set (CI installs the servers).
func needServer(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("ISSUESMITH_REQUIRE_LSP") != "" {
			t.Fatalf("%s not on PATH and ISSUESMITH_REQUIRE_LSP is set: %v", name, err)
		}
		t.Skipf("%s not installed (see README: language servers); skipping", name)
	}
}

// writeRepo writes files under a fresh directory.
func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkDelta asks for the file's errors, breaks it, asks again, and wants
// exactly one new error mentioning want.
func checkDelta(t *testing.T, dir, path, broken, want string) {
	t.Helper()
	var logs []string
	opts := Options{Wait: 60 * time.Second, Start: 60 * time.Second,
		Log: func(f string, a ...any) { logs = append(logs, f) }}
	if err := sandbox.Check(); err == nil {
		opts.Sandbox = &sandbox.Policy{} // as the coder runs them: under bubblewrap
	} else {
		t.Logf("servers run outside the sandbox: %v", err)
	}
	s := NewSession(dir, opts)
	defer s.Close()
	before, ok := s.Errors(t.Context(), path)
	if !ok {
		t.Fatalf("no diagnostics before the edit; log: %v", logs)
	}
	if len(before) != 0 {
		t.Fatalf("errors before the edit: %v", before)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(path)), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	after, ok := s.Errors(t.Context(), path)
	if !ok {
		t.Fatalf("no diagnostics after the edit; log: %v", logs)
	}
	added := NewErrors(before, after)
	if len(added) != 1 || !strings.Contains(added[0].Message, want) {
		t.Fatalf("new errors = %v, want one mentioning %q", added, want)
	}
	t.Logf("new error: %s", added[0])
}

func TestGoTypeError(t *testing.T) {
	t.Parallel()
	needServer(t, "gopls")
	dir := writeRepo(t, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"calc.go": "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
	})
	checkDelta(t, dir, "calc.go", "package calc\n\nfunc Add(a, b int) int {\n\treturn a + \"b\"\n}\n", "mismatched types")
}

func TestTypeScriptTypeError(t *testing.T) {
	t.Parallel()
	needServer(t, "typescript-language-server")
	dir := writeRepo(t, map[string]string{
		"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}}` + "\n",
		"src/calc.ts":   "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
	})
	checkDelta(t, dir, "src/calc.ts", "export function add(a: number, b: number): number {\n  const s: string = a + b;\n  return a + b;\n}\n", "not assignable to type 'string'")
}

func TestPythonUndefinedName(t *testing.T) {
	t.Parallel()
	needServer(t, "pyright-langserver")
	dir := writeRepo(t, map[string]string{
		"calc.py": "def add(a, b):\n    return a + b\n",
	})
	checkDelta(t, dir, "calc.py", "def add(a, b):\n    return a + c\n", `"c" is not defined`)
}

// A missing server is "no diagnostics" with one log line, never an error.
func TestMissingServerDegrades(t *testing.T) {
	t.Parallel()
	dir := writeRepo(t, map[string]string{"calc.py": "x = 1\n"})
	var logs []string
	missing := []Server{{Lang: "python", LanguageID: "python", Exts: []string{".py"}, Argv: []string{"no-such-langserver-w11"}}}
	s := NewSession(dir, Options{Servers: missing, Log: func(f string, a ...any) { logs = append(logs, f) }})
	defer s.Close()
	for range 2 {
		if ds, ok := s.Errors(t.Context(), "calc.py"); ok || ds != nil {
			t.Fatalf("Errors = %v, %v; want nothing", ds, ok)
		}
	}
	if len(logs) != 1 {
		t.Fatalf("want one log line, got %q", logs)
	}
}
