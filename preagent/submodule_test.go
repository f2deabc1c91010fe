package preagent

import (
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/repo/gittest"
)

// In a clone whose submodule folder is empty, the explorer's tools answer
// a look at the submodule with why it is off limits (a tool result, not an
// error that ends the run), list_dir marks it, and a spec naming it is sent
// back; the run goes on to a spec of the repository's own files.
func TestExploreSubmoduleIsAResultNotAnError(t *testing.T) {
	t.Parallel()
	sm := gittest.NewSubmodule(t, map[string]string{"main.go": "package main\n\nconst version = \"1.0\"\n"}, "integration")
	ws := openWS(t, sm.Clone(t))
	withSub := `{"topic":"t","current":[],"desired":[],"files":[{"path":"integration","action":"modify","reason":"r"},` +
		`{"path":"main.go","action":"modify","reason":"r"}]}`
	srv, client := scripted(t, llmtest.Script{
		llmtest.Call("read_file", `{"path":"integration"}`),
		llmtest.Call("preview_file", `{"path":"integration/lib.txt"}`).When(llmtest.Expect{ToolResult: "error:"}),
		llmtest.Call("list_dir", `{}`).When(llmtest.Expect{ToolResult: "error:"}),
		llmtest.Call("grep", `{"pattern":"version"}`).When(llmtest.Expect{ToolResult: "git submodule"}),
		llmtest.Call("submit_spec", withSub).When(llmtest.Expect{ToolResult: "main.go"}),
		llmtest.Call("submit_spec", `{"topic":"t","current":[],"desired":[],"files":[{"path":"main.go","action":"modify","reason":"r"}]}`).
			When(llmtest.Expect{ToolResult: "error:"}),
	})
	res, err := New(client, ws, nil, Options{NoObserver: true}).Explore(t.Context(), Issue{Title: "bump the version", Body: "y"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	for i, want := range []string{
		`"integration" is a git submodule (a pointer to a commit of another repository`,
		`"integration/lib.txt" lies in the git submodule "integration"`,
		"integration/ (git submodule: another repository pinned at a commit; the bot cannot read or change it)",
		"main.go:3:",
		"these paths are git submodules or lie in one (another repository pinned at a commit; the bot cannot change them): integration.",
	} {
		if got := reqs[i+1].Last().Content; !strings.Contains(got, want) {
			t.Errorf("result %d = %q, want %q", i+1, got, want)
		}
	}
	if got := reqs[1].Last().Content; strings.Contains(got, "is a directory") || !strings.HasPrefix(got, "error:") {
		t.Errorf("read_file on the submodule = %q, want an error result naming the submodule", got)
	}
	if res.Spec == nil || len(res.Spec.Files) != 1 || res.Spec.Files[0].Path != "main.go" || srv.Remaining() != 0 {
		t.Errorf("spec = %+v", res.Spec)
	}
}

// A missing path's suggestions never point into a checked-out submodule.
func TestDidYouMeanSkipsSubmodules(t *testing.T) {
	t.Parallel()
	sm := gittest.NewSubmodule(t, map[string]string{"docs/lib.txt": "ours\n"}, "integration")
	ws := openWS(t, sm.Dir)
	srv, client := scripted(t, llmtest.Script{
		llmtest.Call("read_file", `{"path":"lib.txt"}`),
		llmtest.Call("submit_spec", `{"topic":"t","current":[],"desired":[],"files":[{"path":"docs/lib.txt","action":"modify","reason":"r"}]}`).
			When(llmtest.Expect{ToolResult: "error:"}),
	})
	if _, err := New(client, ws, nil, Options{NoObserver: true}).Explore(t.Context(), Issue{Title: "x", Body: "y"}); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[1].Last().Content
	if !strings.Contains(got, "Did you mean: docs/lib.txt?") {
		t.Errorf("read_file lib.txt = %q, want the repository's own docs/lib.txt only", got)
	}
}
