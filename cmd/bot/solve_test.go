package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// solveTree writes a small real checkout: a platform registry and its README.
func solveTree(t *testing.T) string {
	t.Helper()
	return writeTree(t, map[string]string{
		"README.md":              "# prices\n\nPlatform data lives in src/data/.\n",
		"src/data/platform.ts":   "// The platforms the site compares.\nimport { openai } from \"./openai\";\n\nexport const platforms = { openai };\n",
		"src/data/openai.ts":     "// OpenAI models and prices.\nexport const openai = { id: \"openai\", models: [] };\n",
		".github/issuesmith.yml": "version: 1\nobserver: false\nroles:\n  explorer:\n    max_steps: 6\n",
	})
}

const solveSpec = `{"topic":"Add DeepSeek","current":["` + "`src/data/platform.ts`" + ` lists only openai"],` +
	`"desired":["deepseek is listed"],"files":[{"path":"src/data/deepseek.ts","action":"add","reason":"the platform data"},` +
	`{"path":"src/data/platform.ts","action":"modify","reason":"register deepseek"}]}`

const solvePlan = `{"items":[{"path":"src/data/platform.ts","action":"modify","reason":"register it","steps":["Import deepseek","Add it to platforms"],` +
	`"depends_on":["src/data/deepseek.ts"]},{"path":"src/data/deepseek.ts","action":"add","reason":"data","steps":["Export deepseek"]}]}`

func solveScript() llmtest.Script {
	return llmtest.Script{
		llmtest.Call("search", `{"query":"platform registry"}`).WithUsage(900, 20, 0).
			When(llmtest.Expect{Role: "explorer", Last: "Add DeepSeek", Tools: []string{"search", "preview_file"}}),
		llmtest.Call("read_file", `{"path":"src/data/platform.ts"}`).WithUsage(1000, 20, 0).
			When(llmtest.Expect{ToolResult: "src/data/platform.ts"}),
		llmtest.Call("submit_spec", solveSpec).WithUsage(1100, 90, 0).
			When(llmtest.Expect{ToolResult: "export const platforms"}),
		llmtest.Reply(solvePlan).WithUsage(700, 80, 0).When(llmtest.Expect{Role: "planner", Last: "src/data/deepseek.ts"}),
	}
}

func runSolveCmd(t *testing.T, srv *llmtest.Server, args ...string) (string, string, error) {
	t.Helper()
	cmd := newSolveCmdWith(func() []string {
		return []string{"ISSUESMITH_MODEL_BASE_URL=" + srv.URL(), "ISSUESMITH_MODEL_NAME=scripted", "ISSUESMITH_MODEL_MAX_RETRIES=0"}
	})
	return execCmd(t, cmd, "# Add DeepSeek\n\nList DeepSeek with its prices.<!-- secret note -->\n", args...)
}

func TestSolveMarkdown(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, solveScript())
	out, progress, err := runSolveCmd(t, srv, "--repo", solveTree(t), "--issue", "-", "--plan-only")
	if err != nil {
		t.Fatalf("%v\n%s", err, progress)
	}
	for _, want := range []string{"## Spec: Add DeepSeek",
		"- [x] **add** `src/data/deepseek.ts` — the platform data",
		"### 1. add `src/data/deepseek.ts`", "### 2. modify `src/data/platform.ts`", "- Add it to platforms"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, github := range []string{"<!--", "tick this box", "<sub>", "/plan"} {
		if strings.Contains(out, github) {
			t.Errorf("stdout holds GitHub-only text %q:\n%s", github, out)
		}
	}
	for _, want := range []string{"step 1  search platform registry", "step 2  read_file src/data/platform.ts", "planning",
		"3700 prompt + 210 completion tokens"} {
		if !strings.Contains(progress, want) {
			t.Errorf("stderr lacks %q:\n%s", want, progress)
		}
	}
	if strings.Contains(out, "step 1") {
		t.Error("progress leaked to stdout")
	}
	// The repository's config switched the observer off: no observer call.
	for _, r := range srv.Requests() {
		if r.Role == string(llm.RoleObserver) || strings.Contains(allMessages(r), "secret note") {
			t.Errorf("unexpected request content or role %s", r.Role)
		}
	}
}

func TestSolveJSON(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, solveScript())
	out, progress, err := runSolveCmd(t, srv, "--repo", solveTree(t), "--issue", "-", "--json", "--plan-only")
	if err != nil {
		t.Fatalf("%v\n%s", err, progress)
	}
	var rec struct {
		Issue   struct{ Title string }
		Explore struct {
			Reason string
			Steps  int
			Events []struct {
				Kind, Action string
				Usage        llm.Usage
			}
		}
		Spec  struct{ Files []struct{ Path string } }
		Plan  struct{ Items []struct{ Path string } }
		Usage []llm.Line
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	if rec.Issue.Title != "Add DeepSeek" || rec.Explore.Reason != "finished" || rec.Explore.Steps != 3 {
		t.Errorf("record = %+v", rec)
	}
	if len(rec.Explore.Events) != 3 || rec.Explore.Events[1].Action != "read_file src/data/platform.ts" ||
		rec.Explore.Events[1].Usage.PromptTokens != 1000 {
		t.Errorf("events = %+v", rec.Explore.Events)
	}
	if len(rec.Spec.Files) != 2 || len(rec.Plan.Items) != 2 || rec.Plan.Items[0].Path != "src/data/deepseek.ts" {
		t.Errorf("spec %+v plan %+v", rec.Spec, rec.Plan)
	}
	last := rec.Usage[len(rec.Usage)-1]
	if last.Calls != 4 || last.Usage.PromptTokens != 3700 {
		t.Errorf("usage total = %+v", last)
	}
}

func TestSolveUsage(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, nil)
	if _, _, err := runSolveCmd(t, srv, "--repo", t.TempDir()); err == nil || !strings.Contains(err.Error(), "--issue") {
		t.Errorf("err = %v", err)
	}
	cmd := newSolveCmdWith(func() []string { return nil })
	cmd.SetArgs([]string{"--repo", t.TempDir(), "--issue", "-"})
	cmd.SetIn(strings.NewReader("# x\n"))
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "ISSUESMITH_MODEL_NAME") {
		t.Errorf("missing model: err = %v", err)
	}
}

func allMessages(r llmtest.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content)
	}
	return b.String()
}

// A git checkout with uncommitted changes is refused before any model call
// (exit status 2), unless --plan-only (writes nothing) or --force.
func TestSolveRefusesADirtyCheckout(t *testing.T) {
	t.Parallel()
	dir := solveTree(t)
	for _, args := range [][]string{{"init", "--quiet"}, {"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("my unfinished work\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t, nil)
	_, _, err := runSolveCmd(t, srv, "--repo", dir, "--issue", "-")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), "uncommitted changes (README.md)") {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model calls before the refusal", n)
	}
	srv = llmtest.NewServer(t, solveScript())
	if _, progress, err := runSolveCmd(t, srv, "--repo", dir, "--issue", "-", "--plan-only"); err != nil {
		t.Fatalf("--plan-only writes nothing and is allowed: %v\n%s", err, progress)
	}
}

// bot solve probes its models before starting and prints what each said
// (here a model that writes its tool calls as text, as qwen2.5-coder on
// Ollama does); --no-probe skips it.
func TestSolvePrintsTheModelProbe(t *testing.T) {
	t.Parallel()
	for _, noProbe := range []bool{false, true} {
		script := solveScript()
		if !noProbe {
			asText := llmtest.Reply(`{"name": "report", "arguments": {"word": "ready"}}`).When(llmtest.Expect{Probe: true})
			script = append(llmtest.Script{asText}, script...)
		}
		srv := llmtest.NewServer(t, script)
		args := []string{"--repo", solveTree(t), "--issue", "-", "--plan-only"}
		if noProbe {
			args = append(args, "--no-probe")
		}
		_, progress, err := runSolveCmd(t, srv, args...)
		require.NoError(t, err, progress)
		want := `solve: probe: model "scripted" (explorer, tools protocol): writes its tool calls as text; the bot runs ` +
			`such calls, but the server did not parse them (llama.cpp: start it with --jinja; vLLM: --enable-auto-tool-choice ` +
			`--tool-call-parser NAME); or use the text protocol: set ISSUESMITH_MODEL_PROTOCOLS (scripted=text)`
		if noProbe {
			assert.NotContains(t, progress, "solve: probe:")
			assert.Empty(t, srv.Probes())
			continue
		}
		assert.Contains(t, progress, want)
		assert.Less(t, strings.Index(progress, "solve: probe:"), strings.Index(progress, "step 1"), "printed before starting")
	}
}
