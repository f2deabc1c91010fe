package preagent

import (
	"errors"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// requireStrictHistory fails on what strict providers refuse: an empty
// assistant message, a user message right after tool results, two user
// messages in a row.
func requireStrictHistory(t *testing.T, srv *llmtest.Server) {
	t.Helper()
	for n, r := range srv.Requests() {
		for i, m := range r.Messages {
			if m.Role == llm.Assistant && strings.TrimSpace(m.Content) == "" && len(m.ToolCalls) == 0 {
				t.Errorf("request %d, message %d: empty assistant message", n+1, i)
			}
			if i > 0 && m.Role == llm.User && (r.Messages[i-1].Role == llm.ToolRole || r.Messages[i-1].Role == llm.User) {
				t.Errorf("request %d, message %d: user message after %s", n+1, i, r.Messages[i-1].Role)
			}
		}
	}
}

// The observer's note and the compression record never make a user
// message follow tool results or another user message.
func TestObserverAndCompressionKeepTheTurnOrder(t *testing.T) {
	t.Parallel()
	ws := openWS(t, compressionTree(t))
	const hint = "Read src/data/table_b.ts next."
	srv, client := scripted(t, llmtest.Script{
		llmtest.Call("read_file", `{"path":"src/data/table_a.ts"}`).When(llmtest.Expect{Role: "explorer"}),
		llmtest.Reply(`{"analysis":"ok","next":"continue","suggestion":"` + hint + `"}`).When(llmtest.Expect{Role: "observer"}),
		llmtest.Call("read_file", `{"path":"src/data/table_b.ts"}`).When(llmtest.Expect{Role: "explorer", Last: hint}),
		llmtest.Call("submit_spec", submitPlatform).When(llmtest.Expect{Role: "explorer", ToolResult: "MARKER_B_RAW"}),
	})
	opts := Options{ObserveEvery: 1, ObserverBudget: llm.Budget{MaxSteps: 1}, CompressAt: 6000, NoModelVerdicts: true}
	res, err := New(client, ws, nil, opts).Explore(t.Context(), Issue{Title: "Add DeepSeek to the platforms"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Compressions != 1 || len(res.Suggestions) != 1 {
		t.Fatalf("compressions %d, suggestions %q", res.Compressions, res.Suggestions)
	}
	reqs := roleRequests(srv, llm.RoleExplorer)
	if last := reqs[len(reqs)-1]; !strings.Contains(last.Messages[1].Content, recordHeader) {
		t.Error("the record is not in the task message after compression")
	}
	requireStrictHistory(t, srv)
}

// A model that writes its tool calls as JSON text naming a tool it does not
// have (the loop runs text calls of known tools itself): each of the bounded
// nudges says so, and the run ends as the model's failure naming the cause
// and the setting, never as a spec asking the issue's author questions.
func TestToolCallsAsTextGiveANamedCause(t *testing.T) {
	t.Parallel()
	ws := openWS(t, copyTree(t, "testdata/platforms"))
	const asText = `{"name": "open_file", "arguments": {"path": "src/data/platform.ts"}}`
	srv, client := scripted(t, llmtest.Script{
		llmtest.Reply(asText),
		llmtest.Reply(asText).When(llmtest.Expect{Last: "wrote a tool call as text"}),
		llmtest.Reply(asText).When(llmtest.Expect{Last: "wrote a tool call as text"}),
		llmtest.Reply(asText).When(llmtest.Expect{Last: "wrote a tool call as text"}),
	})
	res, err := New(client, ws, nil, Options{NoObserver: true}).Explore(t.Context(), Issue{Title: "Add DeepSeek"})
	if res != nil {
		t.Errorf("a spec was made: %+v", res.Spec)
	}
	var f *llm.ModelFailure
	if !errors.As(err, &f) || !errors.Is(err, llm.ErrModelFailed) {
		t.Fatalf("err = %v, want an *llm.ModelFailure", err)
	}
	for _, want := range []string{"wrote its tool calls as text", "ISSUESMITH_MODEL_ROLE_PROTOCOLS (explorer:text)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	requireStrictHistory(t, srv)
}

// An empty reply is answered by the agent loop ("Your reply was empty") and
// never replayed empty: the strict server, which refuses an empty assistant
// message as Anthropic's layer does, accepts every request.
func TestEmptyReplyIsNotReplayed(t *testing.T) {
	t.Parallel()
	ws := openWS(t, copyTree(t, "testdata/platforms"))
	srv, client := scripted(t, llmtest.Script{
		llmtest.Reply(""),
		llmtest.Call("submit_spec", submitPlatform).When(llmtest.Expect{Last: "Your reply was empty"}),
	})
	res, err := New(client, ws, nil, Options{NoObserver: true}).Explore(t.Context(), Issue{Title: "Add DeepSeek"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Spec.Partial {
		t.Errorf("spec is partial: %q", res.Spec.Note)
	}
	requireStrictHistory(t, srv)
}

func TestStopTextNamesTheCause(t *testing.T) {
	t.Parallel()
	for r, want := range map[llm.StopReason]string{
		llm.StopOutputLimit:   "cut off at the output limit",
		llm.StopNoAction:      "neither called a tool",
		llm.StopContextWindow: "context window",
	} {
		if got := stopText(r, 3, nil); !strings.Contains(got, want) {
			t.Errorf("%s: %q", r, got)
		}
	}
}

// A path that does not exist is answered with "do not guess" and the
// paths the model may have meant.
func TestMissingPathSuggestsExistingOnes(t *testing.T) {
	t.Parallel()
	ws := openWS(t, copyTree(t, "testdata/platforms"))
	srv, client := scripted(t, llmtest.Script{
		llmtest.Call("read_file", `{"path":"src/platform.ts"}`),
		llmtest.Call("submit_spec", submitPlatform).When(llmtest.Expect{ToolResult: "Did you mean: src/data/platform.ts?"}),
	})
	if _, err := New(client, ws, nil, Options{NoObserver: true}).Explore(t.Context(), Issue{Title: "Add DeepSeek"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(allText(srv.Requests()[1]), "Do not guess paths") {
		t.Error("no advice against guessing")
	}
}
