package preagent

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/work"
)

// Options.Progress hears, through the one work.Event type, what the run
// records in Result.Events, as it happens: each step, the compression (its
// size before and after) and each observer call (what it said), all told
// as the explorer's, the run's total never going down.
func TestProgressHearsStepsCompressionsAndObserverCalls(t *testing.T) {
	t.Parallel()
	ws := openWS(t, compressionTree(t))
	const hint = "Read src/data/platform.ts next."
	_, client := scripted(t, llmtest.Script{
		llmtest.Call("read_file", `{"path":"src/data/table_a.ts"}`).When(llmtest.Expect{Role: "explorer"}),
		llmtest.Call("read_file", `{"path":"src/data/table_b.ts"}`).When(llmtest.Expect{Role: "explorer", ToolResult: "MARKER_A_RAW"}),
		llmtest.Reply(`{"analysis":"Tables are chart data.","next":"continue","suggestion":"` + hint + `"}`).
			When(llmtest.Expect{Role: "observer"}),
		llmtest.Call("submit_spec", submitPlatform).When(llmtest.Expect{Role: "explorer", Last: hint}),
	})
	var heard []work.Event
	opts := Options{ObserveEvery: 2, CompressAt: 6000, NoModelVerdicts: true,
		Progress: func(ev work.Event) { heard = append(heard, ev) }}
	res, err := New(client, ws, nil, opts).Explore(t.Context(), Issue{Title: "Add DeepSeek to the platforms"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(res.Events, heard); d != "" {
		t.Fatalf("heard differs from Result.Events (-result +heard):\n%s", d)
	}
	var kinds []work.EventKind
	var compress, observer *work.Event
	for i, ev := range heard {
		kinds = append(kinds, ev.Kind)
		if ev.Agent != llm.RoleExplorer {
			t.Errorf("event %d told as %q's", i, ev.Agent)
		}
		if i > 0 && ev.Total.Total() < heard[i-1].Total.Total() {
			t.Errorf("event %d: total went down to %d", i, ev.Total.Total())
		}
		switch ev.Kind {
		case work.EventCompress:
			compress = &heard[i]
		case work.EventObserver:
			observer = &heard[i]
		}
	}
	if compress == nil || observer == nil {
		t.Fatalf("kinds heard = %v: want a compression and an observer call", kinds)
	}
	if compress.Before <= compress.PromptTokens || compress.PromptTokens == 0 {
		t.Errorf("compression %d → %d prompt tokens", compress.Before, compress.PromptTokens)
	}
	if want := "next=continue; Tables are chart data.; suggestion: " + hint; observer.Detail != want || observer.Usage.Total() == 0 {
		t.Errorf("observer event = %+v, want detail %q and its usage", *observer, want)
	}
}
