package coder

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/work"
)

func TestRevise(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{"calc.go": calcGo})
	c, srv := scripted(t, "revise", Options{SkipGoChecks: true})
	res, err := c.Revise(t.Context(), ws, ReviewRequest{Path: "calc.go", Lines: LineRange{Start: 3, End: 5},
		Thread: []string{"alice: looks good overall"}, Comment: "Please document Add properly."})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	require.Equal(t, ItemDone, res.Items[0].Status)
	require.Contains(t, readFile(t, ws, "calc.go"), "// Add returns the sum of a and b.\nfunc Add")
	prompt := srv.Requests()[0].Messages[1].Content
	require.Contains(t, prompt, "lines 3–5")
	require.Contains(t, prompt, "> alice: looks good overall")
	require.Equal(t, []string{"calc.go"}, res.Changes.Paths())
}

func TestReviseWithoutCodeChange(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{"calc.go": calcGo})
	c, srv := scripted(t, "revise_decline", Options{SkipGoChecks: true})
	res, err := c.Revise(t.Context(), ws, ReviewRequest{Path: "calc.go", Lines: LineRange{Start: 4}, Comment: "Why not use math.Abs here?"})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining(), "one model call, no retry for an explanation")
	require.Equal(t, ItemSkipped, res.Items[0].Status)
	require.Equal(t, "no code change: Add works on ints; math.Abs takes float64, so no change is needed.", res.Items[0].Reason)
	require.True(t, res.Changes.Empty())
	require.Equal(t, calcGo, readFile(t, ws, "calc.go"))
}

func TestImplementCommandsOffByDefault(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{"calc.go": calcGo})
	c, _ := scripted(t, "revise", Options{SkipGoChecks: true, CheckCommands: []string{"touch ran"}})
	_, err := c.Revise(t.Context(), ws, ReviewRequest{Path: "calc.go", Comment: "Please document Add"})
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(ws.Dir(), "ran"))
	require.True(t, os.IsNotExist(err), "a check command ran without RunCommands")
}

func TestResultReport(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{"a.go": "package p\n\nfunc A() int { return 1 }\n", "b.go": "package p\n\nfunc B() int { return 1 }\n"})
	c, _ := scripted(t, "exhausted", Options{Attempts: 2, SkipGoChecks: true})
	res, err := c.Implement(t.Context(), ws, nil, &work.Plan{Items: []work.Item{
		item("a.go", work.ActionModify, "Change A."), item("b.go", work.ActionModify, "Make `B` return 2."),
	}})
	require.NoError(t, err)
	rep := res.Report()
	require.Contains(t, rep, "a.go                     failed   attempts=2")
	require.Contains(t, rep, "b.go                     done     attempts=1")
	require.Contains(t, rep, "retries: 1;")
	require.Contains(t, rep, "1 file changed, 1 insertion(+), 1 deletion(-)")
}

func TestImplementTokenBudgetIsPerRun(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{"a.go": "package p\n", "b.go": "package p\n"})
	c, srv := scripted(t, "budget", Options{MaxTokens: 400, SkipGoChecks: true})
	res, err := c.Implement(t.Context(), ws, nil, &work.Plan{Items: []work.Item{
		item("a.go", work.ActionModify, "Change A."), item("b.go", work.ActionModify, "Change B."),
	}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	for _, it := range res.Items {
		require.Equal(t, ItemFailed, it.Status, it.Path)
		require.Contains(t, it.Reason, "token budget of 400 is exhausted", it.Path)
	}
	require.Equal(t, 1, res.Items[0].Attempts)
	require.Equal(t, 0, res.Items[1].Attempts)
	require.Equal(t, 550, res.Usage.Total())
}

func TestImplementGoBuildErrorFedBack(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{"go.mod": "module example.com/calc\n\ngo 1.22\n", "calc.go": calcGo})
	c, srv := scripted(t, "build_fix", Options{})
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "twice"},
		&work.Plan{Items: []work.Item{item("calc.go", work.ActionModify, "Add `Twice`.")}})
	require.NoError(t, err)
	require.NotEmpty(t, res.Checks, "go test runs with a go toolchain on PATH")
	require.Zero(t, srv.Remaining())
	require.Equal(t, "go build", res.Checks[0].Name)
	require.False(t, res.Checks[0].OK)
	require.Contains(t, res.Checks[0].Output, "calc.go")
	require.True(t, res.OK(), "last checks: %+v", res.Checks)
	require.Contains(t, readFile(t, ws, "calc.go"), "return Add(x, x)")
}

func TestImplementTextProtocol(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{"calc.go": calcGo})
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, filepath.Join("testdata", "text_protocol.yaml")))
	client, err := llm.NewClient(llm.Config{BaseURL: srv.URL(), Model: "no-tools", Protocol: llm.ProtocolText})
	require.NoError(t, err)
	c, err := New(client, Options{SkipGoChecks: true})
	require.NoError(t, err)
	res, err := c.Implement(t.Context(), ws, nil, &work.Plan{Items: []work.Item{item("calc.go", work.ActionModify, "Swap the operands.")}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	require.Equal(t, ItemDone, res.Items[0].Status)
	require.Equal(t, 1, res.Items[0].Attempts)
	require.Contains(t, readFile(t, ws, "calc.go"), "\treturn b + a\n")
	require.Contains(t, kinds(res), "calc.go:read")
	require.Empty(t, srv.Requests()[0].Tools, "no tool list for a text-protocol model")
	// One way to edit in text mode: blocks in the reply. No tool-call
	// instructions contradict the one-action-per-reply protocol.
	sys := srv.Requests()[0].Messages[0].Content
	require.NotContains(t, sys, "edit_file")
	require.NotContains(t, sys, "edit_lines")
	require.Contains(t, sys, "Write the blocks directly in your reply")
}

func TestImplementNeverWritesThroughSymlinks(t *testing.T) {
	t.Parallel()
	wf := "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
	ws := fixture(t, map[string]string{".github/workflows/ci.yml": wf, "notes.md": "old note\n"})
	require.NoError(t, os.MkdirAll(filepath.Join(ws.Dir(), "docs"), 0o755))
	require.NoError(t, os.Symlink("../.github/workflows/ci.yml", filepath.Join(ws.Dir(), "docs", "ci.yml")))
	c, srv := scripted(t, "symlink", Options{SkipGoChecks: true})
	res, err := c.Implement(t.Context(), ws, nil, &work.Plan{Items: []work.Item{
		item("notes.md", work.ActionModify, "Update the note."),
		item("docs/ci.yml", work.ActionModify, "Run on self-hosted."),
	}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	require.Equal(t, wf, readFile(t, ws, ".github/workflows/ci.yml"))
	require.Equal(t, "new note\n", readFile(t, ws, "notes.md"))
	link := res.Items[1]
	require.Equal(t, ItemBlocked, link.Status)
	require.Contains(t, link.Reason, "symbolic link")
	require.Equal(t, []string{"docs/ci.yml"}, res.Blocked)
}

func TestImplementRefusesBinaryFile(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{"logo.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"})
	c := silent(t, Options{SkipGoChecks: true})
	res, err := c.Implement(t.Context(), ws, nil, &work.Plan{Items: []work.Item{item("logo.png", work.ActionModify, "Recolour.")}})
	require.NoError(t, err)
	require.Equal(t, ItemFailed, res.Items[0].Status)
	require.Contains(t, res.Items[0].Reason, "binary")
}
