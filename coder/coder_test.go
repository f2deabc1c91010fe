package coder

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/work"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// fixture writes files into a fresh temp dir and opens it as a workspace.
func fixture(t *testing.T, files map[string]string) *repo.Workspace {
	t.Helper()
	dir := t.TempDir()
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(s), 0o644))
	}
	ws, err := repo.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	return ws
}

// scripted returns a Coder whose model is the real llm.Client talking to
// the scripted server playing testdata/<name>.yaml.
func scripted(t *testing.T, name string, opts Options) (*Coder, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, filepath.Join("testdata", name+".yaml")))
	client, err := llm.NewClient(llm.Config{BaseURL: srv.URL(), Model: "test-coder"})
	require.NoError(t, err)
	c, err := New(client, opts)
	require.NoError(t, err)
	return c, srv
}

func item(path string, action work.Action, steps ...string) work.Item {
	it := work.Item{Path: path, Action: action}
	for _, s := range steps {
		it.Steps = append(it.Steps, work.Step{Text: s})
	}
	return it
}

func readFile(t *testing.T, ws *repo.Workspace, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws.Dir(), filepath.FromSlash(p)))
	require.NoError(t, err)
	return string(b)
}

// golden compares got with testdata/<name>, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(p, []byte(got), 0o644))
	}
	want, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, string(want), got)
}

func itemByPath(t *testing.T, res *Result, p string) ItemResult {
	t.Helper()
	for _, it := range res.Items {
		if it.Path == p {
			return it
		}
	}
	t.Fatalf("no item %s in %+v", p, res.Items)
	return ItemResult{}
}

func kinds(res *Result) string {
	var out []string
	for _, e := range res.Transcript {
		out = append(out, e.Item+":"+e.Kind)
	}
	return strings.Join(out, " ")
}

const calcGo = `package calc

// Add returns a + b.
func Add(a, b int) int {
	return a + b
}
`

func TestImplementThreeFiles(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc/calc.go": calcGo,
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/calc/calc\"\n)\n\n" +
			"func main() {\n\tfmt.Println(calc.Add(2, 3))\n}\n",
	})
	c, srv := scripted(t, "three_files", Options{})
	spec := &work.Spec{Topic: "Add subtraction", Desired: []string{"calc has Sub and main prints it"}}
	plan := &work.Plan{Items: []work.Item{
		item("calc/calc.go", work.ActionModify, "Add `Sub(a, b int) int` returning a - b."),
		item("calc/sub_test.go", work.ActionAdd, "Test `Sub`."),
		item("main.go", work.ActionModify, "Print calc.Sub(5, 3) after the sum."),
	}}
	res, err := c.Implement(t.Context(), ws, spec, plan)
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	for _, it := range res.Items {
		require.Equal(t, ItemDone, it.Status, "%s: %s", it.Path, it.Reason)
		require.Equal(t, 1, it.Attempts, it.Path)
	}
	require.True(t, res.OK(), "checks: %+v", res.Checks)
	// gofmt fixed the model's "calc.Sub(5,3)".
	require.Contains(t, readFile(t, ws, "main.go"), "\tfmt.Println(calc.Sub(5, 3))\n")
	require.Contains(t, kinds(res), "main.go:gofmt")
	golden(t, "three_files.diff", res.Changes.Diff)
	require.Equal(t, "3 files changed, 15 insertions(+), 0 deletions(-)", res.Changes.Stat())
	require.Equal(t, llm.Usage{PromptTokens: 3000, CompletionTokens: 190}, res.Usage)
	require.Contains(t, res.Summary, "- `calc/sub_test.go` (add): done, +9 −0")
	// go test runs with a go toolchain on PATH: build and vet of the touched packages.
	require.Len(t, res.Checks, 2)
	require.Equal(t, "go build . ./calc", res.Checks[0].Command)
	require.Equal(t, "go vet . ./calc", res.Checks[1].Command)
	t.Logf("transcript: %s", kinds(res))
	// Every item's prompt starts with the same task and plan, so a
	// provider's prefix cache serves them; what differs comes after.
	var firsts []string
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == llm.User {
				firsts = append(firsts, m.Content)
				break
			}
		}
	}
	require.Len(t, firsts, 3)
	stable := firsts[0][:strings.Index(firsts[0], "# Your item:")]
	require.Contains(t, stable, "- calc/sub_test.go (add)\n")
	for _, f := range firsts[1:] {
		require.True(t, strings.HasPrefix(f, stable), "an item's prompt does not start with the task and plan:\n%s", f)
	}
	require.Contains(t, firsts[2], "# Your item: main.go (modify)\nItem 3 of 3. calc/calc.go: done. calc/sub_test.go: done.\n")
	// The edits already made come before the item and grow append-only:
	// item 3's prompt repeats item 2's up to the end of item 1's diff, so
	// that diff is served from the cache too.
	shared := commonPrefix(firsts[1], firsts[2])
	require.Contains(t, shared, "# Edits already made in this run\n")
	require.Contains(t, shared, "+func Sub(a, b int) int {\n", "item 1's diff is in the prefix items 2 and 3 share")
	require.NotContains(t, shared, "# Your item:")
	require.Less(t, strings.Index(firsts[2], "+func TestSub("), strings.Index(firsts[2], "# Your item:"))
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

func TestImplementMalformedThenCorrected(t *testing.T) {
	t.Parallel()
	orig := "package greet\n\nfunc Hello(name string) string {\n\treturn \"Hello, \" + name\n}\n"
	ws := fixture(t, map[string]string{"greet.go": orig})
	c, srv := scripted(t, "malformed_then_fixed", Options{SkipGoChecks: true})
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "exclaim"},
		&work.Plan{Items: []work.Item{item("greet.go", work.ActionModify, "End the greeting with !")}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	it := itemByPath(t, res, "greet.go")
	require.Equal(t, ItemDone, it.Status)
	require.Equal(t, 2, it.Attempts)
	require.Contains(t, readFile(t, ws, "greet.go"), "\treturn \"Hello, \" + name + \"!\"\n")
	require.Contains(t, strings.Join(it.Notes, "\n"), "malformed")
}

func TestImplementAmbiguousThenMoreContext(t *testing.T) {
	t.Parallel()
	orig := "package store\n\nimport \"errors\"\n\n// ErrClosed is returned after Close.\nvar ErrClosed = errors.New(\"closed\")\n\n" +
		"func Open(p string) error {\n\tif p == \"\" {\n\t\treturn nil\n\t}\n\treturn nil\n}\n\n" +
		"func Close() error {\n\treturn nil\n}\n"
	ws := fixture(t, map[string]string{"store.go": orig})
	c, srv := scripted(t, "ambiguous_then_fixed", Options{SkipGoChecks: true})
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "close"},
		&work.Plan{Items: []work.Item{item("store.go", work.ActionModify, "Make `Close` return ErrClosed.")}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	it := itemByPath(t, res, "store.go")
	require.Equal(t, ItemDone, it.Status)
	require.Equal(t, 2, it.Attempts)
	got := readFile(t, ws, "store.go")
	require.Equal(t, strings.Replace(orig, "func Close() error {\n\treturn nil", "func Close() error {\n\treturn ErrClosed", 1), got)
	// The refusal went back with the candidates' lines.
	reqs := srv.Requests()
	require.Contains(t, reqs[1].Last().Content, "ambiguous")
}

func TestImplementSyntaxBreakRolledBack(t *testing.T) {
	t.Parallel()
	orig := calcGo + "\nfunc Double(x int) int {\n\treturn x * 2\n}\n"
	ws := fixture(t, map[string]string{"calc.go": orig})
	c, srv := scripted(t, "syntax_rollback", Options{SkipGoChecks: true})
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "double"},
		&work.Plan{Items: []work.Item{item("calc.go", work.ActionModify, "Make `Double` return 0 for x <= 0.")}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	it := itemByPath(t, res, "calc.go")
	require.Equal(t, ItemDone, it.Status)
	require.Equal(t, 2, it.Attempts)
	require.Contains(t, kinds(res), "calc.go:rollback")
	fb := srv.Requests()[1].Last().Content
	require.Contains(t, fb, "syntax error")
	require.Contains(t, fb, "line ") // the Go parser says where
	want := strings.Replace(orig, "// Add returns a + b.", "// Add returns the sum of a and b.", 1)
	want = strings.Replace(want, "\treturn x * 2\n}", "\tif x > 0 {\n\t\treturn x * 2\n\t}\n\treturn 0\n}", 1)
	// Had the rollback not restored the first block's line, the second
	// answer's first block would not have matched; the file is exact.
	require.Equal(t, want, readFile(t, ws, "calc.go"))
}

func TestImplementBlockedPath(t *testing.T) {
	t.Parallel()
	wf := "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
	ws := fixture(t, map[string]string{
		"main.go":                  "package main\n\nconst version = \"1.0\"\n",
		".github/workflows/ci.yml": wf,
	})
	c, srv := scripted(t, "blocked_path", Options{SkipGoChecks: true})
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "bump"}, &work.Plan{Items: []work.Item{
		item("main.go", work.ActionModify, "Bump version to 1.1."),
		item(".github/workflows/ci.yml", work.ActionModify, "Run on self-hosted."),
	}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining(), "no model call for the blocked item")
	require.Equal(t, wf, readFile(t, ws, ".github/workflows/ci.yml"))
	require.Equal(t, []string{".github/workflows/ci.yml"}, res.Blocked)
	require.Equal(t, ItemBlocked, itemByPath(t, res, ".github/workflows/ci.yml").Status)
	m := itemByPath(t, res, "main.go")
	require.Equal(t, ItemDone, m.Status)
	require.Contains(t, strings.Join(m.Notes, "\n"), ".github/workflows/ci.yml refused")
	require.Equal(t, []string{"main.go"}, res.Changes.Paths())
	require.Contains(t, res.Summary, "blocked paths")
	require.False(t, res.OK())
}

func TestImplementCheckCommandFedBack(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{
		"go.mod":  "module example.com/calc\n\ngo 1.22\n",
		"calc.go": calcGo,
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestMul(t *testing.T) {\n" +
			"\tif got := Mul(2, 3); got != 6 {\n\t\tt.Fatalf(\"Mul(2, 3) = %d, want 6\", got)\n\t}\n}\n",
	})
	c, srv := scripted(t, "check_fix", Options{SkipGoChecks: true, RunCommands: true,
		CheckCommands: []string{"go test -count=1 ./..."}})
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "mul"},
		&work.Plan{Items: []work.Item{item("calc.go", work.ActionModify, "Add `Mul`.")}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	require.Len(t, res.Checks, 2)
	require.False(t, res.Checks[0].OK)
	require.Equal(t, 0, res.Checks[0].Round)
	require.True(t, res.Checks[1].OK, res.Checks[1].Output)
	require.Equal(t, 1, res.Checks[1].Round)
	require.Contains(t, readFile(t, ws, "calc.go"), "\treturn a * b\n")
	require.True(t, res.OK())
}

func TestImplementExhaustedKeepsOtherFiles(t *testing.T) {
	t.Parallel()
	a := "package p\n\nfunc A() int { return 1 }\n"
	ws := fixture(t, map[string]string{"a.go": a, "b.go": "package p\n\nfunc B() int { return 1 }\n"})
	c, srv := scripted(t, "exhausted", Options{Attempts: 2, SkipGoChecks: true})
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "t"}, &work.Plan{Items: []work.Item{
		item("a.go", work.ActionModify, "Change A."),
		item("b.go", work.ActionModify, "Make `B` return 2."),
	}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	ia := itemByPath(t, res, "a.go")
	require.Equal(t, ItemFailed, ia.Status)
	require.Equal(t, 2, ia.Attempts)
	require.Contains(t, ia.Reason, "no clean edit after 2 attempts")
	require.Contains(t, ia.Reason, "not_found")
	require.Equal(t, a, readFile(t, ws, "a.go"))
	require.Equal(t, ItemDone, itemByPath(t, res, "b.go").Status)
	require.Equal(t, []string{"b.go"}, res.Changes.Paths())
	require.Contains(t, res.Summary, "`a.go` (modify): failed")
	require.False(t, res.OK())
}

func TestImplementToolCallsOnLargeFile(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := 0; i < 150; i++ {
		b.WriteString(fmt.Sprintf("func F%d() {}\n\n", i))
	}
	b.WriteString("func Target(x int) int {\n\treturn x\n}\n")
	ws := fixture(t, map[string]string{"big.go": b.String()})
	c, srv := scripted(t, "tool_calls", Options{SkipGoChecks: true, MaxFileLines: 120})
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "negate"},
		&work.Plan{Items: []work.Item{item("big.go", work.ActionModify, "Make `Target` return -x.")}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	it := itemByPath(t, res, "big.go")
	require.Equal(t, ItemDone, it.Status)
	require.Equal(t, 1, it.Attempts)
	require.Contains(t, readFile(t, ws, "big.go"), "func Target(x int) int {\n\treturn -x\n}\n")
	prompt := srv.Requests()[0].Messages[1].Content
	require.Contains(t, prompt, "func Target(x int) int {")
	require.Contains(t, prompt, "not shown …")
	require.Contains(t, kinds(res), "big.go:read")
}

func TestImplementDeleteItem(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{"old.go": "package p\n", "keep.go": "package p\n"})
	c := silent(t, Options{SkipGoChecks: true})
	res, err := c.Implement(t.Context(), ws, nil, &work.Plan{Items: []work.Item{
		item("old.go", work.ActionDelete), item("gone.go", work.ActionDelete),
	}})
	require.NoError(t, err)
	require.Equal(t, ItemDone, res.Items[0].Status)
	require.Equal(t, ItemSkipped, res.Items[1].Status)
	require.Equal(t, FileDeleted, res.Changes.Files[0].Status)
	_, err = os.Stat(filepath.Join(ws.Dir(), "old.go"))
	require.True(t, os.IsNotExist(err))
}

func TestNewRejectsBadGlob(t *testing.T) {
	t.Parallel()
	_, err := New(silent(t, Options{}).model, Options{Blocked: []string{"[oops"}})
	require.ErrorContains(t, err, "[oops")
}

// silent returns a Coder whose model is a scripted server with an empty
// script: any model call fails the test.
func silent(t *testing.T, opts Options) *Coder {
	t.Helper()
	srv := llmtest.NewServer(t, llmtest.Script{})
	client, err := llm.NewClient(llm.Config{BaseURL: srv.URL(), Model: "test-coder"})
	require.NoError(t, err)
	c, err := New(client, opts)
	require.NoError(t, err)
	return c
}
