package preagent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/summaries"
	"github.com/issuesmith/issuesmith/work"
)

func TestExploreFullRun(t *testing.T) {
	t.Parallel()
	ws := openWS(t, copyTree(t, "testdata/platforms"))
	srv, client := scripted(t, llmtest.LoadScript(t, "testdata/explore_deepseek.yaml"))
	var events []work.Event
	ex := New(client, ws, nil, Options{Progress: func(e work.Event) { events = append(events, e) }})
	res, err := ex.Explore(t.Context(), readIssue(t, "testdata/platforms_issue.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := &work.Spec{
		Topic: "Add the DeepSeek platform with its models and prices",
		Current: []string{"`src/data/platform.ts` registers only `openai` and `anthropic` in `platforms`.",
			"Each platform is one module under `src/data/` exporting a `Platform` (see `src/data/openai.ts`)."},
		Desired: []string{"A `deepseek` platform with deepseek-chat and deepseek-reasoner and their USD prices is listed on the home page."},
		Files: []work.FileChange{
			{Path: "src/data/deepseek.ts", Action: work.ActionAdd, Reason: "the DeepSeek platform object with its two models and prices, shaped like openai.ts"},
			{Path: "src/data/platform.ts", Action: work.ActionModify, Reason: "import deepseek and add it to platforms"},
		},
		Questions: []string{"Should deepseek-reasoner show the cache-hit input price too?"},
	}
	if d := cmp.Diff(want, res.Spec); d != "" {
		t.Errorf("spec (-want +got):\n%s", d)
	}
	if res.Reason != llm.StopFinished || res.Steps != 5 || res.Spec.Partial {
		t.Errorf("reason %s, steps %d, partial %v", res.Reason, res.Steps, res.Spec.Partial)
	}
	if got, want := res.Usage, (llm.Usage{PromptTokens: 1500 + 1700 + 1900 + 2100 + 900 + 2300, CompletionTokens: 40 + 30 + 30 + 20 + 30 + 200}); got != want {
		t.Errorf("usage = %+v, want %+v", got, want)
	}

	// The first request: guidance from AGENTS.md in the system prompt, the
	// issue cleaned and delimited, the top-level tree and the README head.
	first := srv.Requests()[0]
	sys, task := first.Messages[0].Content, first.Messages[1].Content
	for _, s := range []string{"<guidance>", "exports one `Platform` object"} {
		if !strings.Contains(sys, s) {
			t.Errorf("system prompt lacks %q", s)
		}
	}
	for _, s := range []string{"<issue>", "untrusted", "Add DeepSeek to the platforms", "Prices are on", "src/", "package.json", "<readme>", "one module per platform"} {
		if !strings.Contains(task, s) {
			t.Errorf("task message lacks %q:\n%s", s, task)
		}
	}
	for _, s := range []string{"exfiltrate", "\u200b", "delete the repository"} {
		if strings.Contains(sys+task, s) {
			t.Errorf("hidden text %q reached the prompt", s)
		}
	}
	// Tools really ran on the tree: the read window and the outline.
	reqs := roleRequests(srv, llm.RoleExplorer)
	if got := reqs[2].Last().Content; !strings.Contains(got, "export function platformById") {
		t.Errorf("read_file result = %q", got)
	}
	if got := reqs[3].Last().Content; !strings.Contains(got, "openai") || !strings.Contains(got, "outline") {
		t.Errorf("preview_file result = %q", got)
	}
	var acts []string
	for _, e := range events {
		if e.Kind == work.EventStep {
			acts = append(acts, e.Action)
		}
	}
	wantActs := []string{"list_dir src", "read_file src/data/platform.ts", "preview_file src/data/openai.ts", "grep platforms", "submit_spec"}
	if d := cmp.Diff(wantActs, acts); d != "" {
		t.Errorf("progress actions (-want +got):\n%s", d)
	}
}

func TestExplorePathOutsideRepoIsAResult(t *testing.T) {
	t.Parallel()
	ws := openWS(t, copyTree(t, "testdata/platforms"))
	srv, client := scripted(t, llmtest.Script{
		llmtest.Call("read_file", `{"path":"../../etc/passwd"}`),
		llmtest.Call("list_dir", `{"path":"/etc"}`).When(llmtest.Expect{ToolResult: "error:"}),
		llmtest.Call("preview_file", `{"path":"src/nope.ts"}`).When(llmtest.Expect{ToolResult: "error:"}),
		llmtest.Call("submit_spec", `{"topic":"t","current":[],"desired":[],"files":[{"path":"src/lib/format.ts","action":"modify","reason":"r"}]}`).
			When(llmtest.Expect{ToolResult: "error:"}),
	})
	res, err := New(client, ws, nil, Options{NoObserver: true}).Explore(t.Context(), Issue{Title: "x", Body: "y"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	for i, want := range []string{"outside the repository", "outside the repository", "no such file"} {
		if got := reqs[i+1].Last().Content; !strings.Contains(got, want) || !strings.HasPrefix(got, "error:") {
			t.Errorf("result %d = %q, want an error result with %q", i+1, got, want)
		}
	}
	if res.Spec == nil || res.Spec.Partial || len(res.Spec.Files) != 1 {
		t.Errorf("run did not continue to a spec: %+v", res.Spec)
	}
}

func TestExploreRejectsBadSpecThenAccepts(t *testing.T) {
	t.Parallel()
	ws := openWS(t, copyTree(t, "testdata/platforms"))
	srv, client := scripted(t, llmtest.Script{
		llmtest.Call("submit_spec", `{"topic":"","current":[],"desired":[],"files":[{"path":"src/data/mistral.ts","action":"modify","reason":"x"}]}`),
		llmtest.Call("submit_spec", `{"topic":"t","current":[],"desired":[],"files":[{"path":"src/data/mistral.ts","action":"modify","reason":"x"}]}`).
			When(llmtest.Expect{ToolResult: "topic is empty"}),
		llmtest.Call("submit_spec", `{"topic":"t","current":[],"desired":[],"files":[{"path":"src/data/mistral.ts","action":"add","reason":"x"}]}`).
			When(llmtest.Expect{ToolResult: "do not exist"}),
	})
	res, err := New(client, ws, nil, Options{NoObserver: true}).Explore(t.Context(), Issue{Title: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Spec.Files[0].Action != work.ActionAdd || srv.Remaining() != 0 {
		t.Errorf("spec = %+v", res.Spec)
	}
}

func TestExploreAmbiguousIssueGivesQuestions(t *testing.T) {
	t.Parallel()
	ws := openWS(t, copyTree(t, "testdata/platforms"))
	_, client := scripted(t, llmtest.Script{
		llmtest.Call("submit_spec", `{"topic":"Make it better","current":["The site lists two platforms."],"desired":[],"files":[],
			"questions":["Which page should change?","What does better mean: speed, layout or data?"]}`),
	})
	res, err := New(client, ws, nil, Options{NoObserver: true}).Explore(t.Context(), Issue{Title: "make it better"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Spec.NeedsAnswers() || len(res.Spec.Questions) != 2 {
		t.Errorf("spec = %+v, want questions only", res.Spec)
	}
}

func TestExploreProseAnswerIsNudgedOnce(t *testing.T) {
	t.Parallel()
	ws := openWS(t, copyTree(t, "testdata/platforms"))
	_, client := scripted(t, llmtest.Script{
		llmtest.Reply("I think platform.ts needs a change."),
		llmtest.Call("submit_spec", `{"topic":"t","current":[],"desired":[],"files":[{"path":"src/data/platform.ts","action":"modify","reason":"r"}]}`).
			When(llmtest.Expect{Last: "Call submit_spec now"}),
	})
	res, err := New(client, ws, nil, Options{NoObserver: true}).Explore(t.Context(), Issue{Title: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Spec.Partial || res.Steps != 2 {
		t.Errorf("spec %+v after %d steps", res.Spec, res.Steps)
	}
}

// An observer that says "done" and adds advice still tells the explorer to
// submit: the advice alone would leave it exploring.
func TestObserverDoneWithSuggestionStillAsksForSpec(t *testing.T) {
	t.Parallel()
	ws := openWS(t, copyTree(t, "testdata/platforms"))
	script := llmtest.LoadScript(t, "testdata/explore_deepseek.yaml")
	script[4].Reply.Content = `{"analysis": "Found it.", "next": "done", "suggestion": "Mention the pricing URL in the spec."}`
	script[5].Expect.Last = "Mention the pricing URL in the spec. You have found enough: call submit_spec now."
	_, client := scripted(t, script)
	res, err := New(client, ws, nil, Options{}).Explore(t.Context(), readIssue(t, "testdata/platforms_issue.md"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Spec == nil || res.Spec.Partial || len(res.Suggestions) != 1 {
		t.Fatalf("spec %+v, suggestions %q", res.Spec, res.Suggestions)
	}
}

// search with a limit above the cap returns the cap's worth of files (the
// description says "at most 20"), not the default ten.
func TestSearchLimitIsCappedNotReset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := 0; i < 25; i++ {
		src := fmt.Sprintf("package w\n\n// Widget%d renders a widget.\nfunc Widget%d() string { return \"widget\" }\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("widget%02d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := openWS(t, dir)
	idx, err := summaries.Build(t.Context(), ws, summaries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, client := scripted(t, llmtest.Script{
		llmtest.Call("search", `{"query": "widget", "limit": 30}`),
		llmtest.Call("submit_spec", `{"topic": "t", "current": [], "desired": [], "files": [], "questions": ["which widget?"]}`).
			When(llmtest.Expect{ToolResult: "\n20. widget"}),
	})
	res, err := New(client, ws, idx, Options{NoObserver: true}).Explore(t.Context(), Issue{Title: "Widgets"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Spec == nil || res.Spec.Partial {
		t.Fatalf("spec %+v", res.Spec)
	}
}
