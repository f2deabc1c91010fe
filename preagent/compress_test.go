package preagent

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// writeBig writes a generated table of about 200 lines, each carrying marker.
func writeBig(t testing.TB, dir, rel, title, marker string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\n", title)
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "export const row%03d = { key: %q, weight: %d };\n", i, marker, i*7%13)
	}
	if err := os.WriteFile(filepath.Join(dir, rel), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func compressionTree(t *testing.T) string {
	dir := copyTree(t, "testdata/platforms")
	writeBig(t, dir, "src/data/table_a.ts", "Generated lookup table A for the charts.", "MARKER_A_RAW")
	writeBig(t, dir, "src/data/table_b.ts", "Generated lookup table B for the charts.", "MARKER_B_RAW")
	return dir
}

const submitPlatform = `{"topic":"Add DeepSeek","current":["platform.ts lists two platforms"],"desired":["three"],` +
	`"files":[{"path":"src/data/platform.ts","action":"modify","reason":"register deepseek"}]}`

func TestCompressionReplacesRawWindowsWithRecord(t *testing.T) {
	t.Parallel()
	for _, modelVerdicts := range []bool{true, false} {
		t.Run(fmt.Sprintf("model_verdicts=%v", modelVerdicts), func(t *testing.T) {
			t.Parallel()
			ws := openWS(t, compressionTree(t))
			script := llmtest.Script{
				llmtest.Call("read_file", `{"path":"src/data/table_a.ts"}`).When(llmtest.Expect{Role: "explorer"}),
				{Expect: llmtest.Expect{Role: "explorer", ToolResult: "MARKER_A_RAW"}, Reply: llmtest.Answer{
					Content:   "src/data/table_a.ts is only chart data, not the platform registry.",
					ToolCalls: []llmtest.CallSpec{{Name: "read_file", Args: map[string]any{"path": "src/data/table_b.ts"}}}}},
			}
			if modelVerdicts {
				script = append(script, llmtest.Reply(`{"files":[{"path":"src/data/table_a.ts","summary":"Chart lookup table A",`+
					`"relevant":false,"why":"chart data only"}],"hypothesis":"platform.ts must register deepseek"}`).
					When(llmtest.Expect{Role: "explorer", Last: "Files to judge: src/data/table_a.ts"}))
			}
			script = append(script, llmtest.Call("submit_spec", submitPlatform).
				When(llmtest.Expect{Role: "explorer", ToolResult: "MARKER_B_RAW"}))
			srv, client := scripted(t, script)
			opts := Options{NoObserver: true, CompressAt: 6000, NoModelVerdicts: !modelVerdicts}
			res, err := New(client, ws, nil, opts).Explore(t.Context(), Issue{Title: "Add DeepSeek to the platforms"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Compressions != 1 {
				t.Fatalf("compressions = %d, want 1", res.Compressions)
			}
			var reqs []llmtest.Request // the explorer's steps, without the question before the compression
			var asked []llmtest.Request
			for _, r := range roleRequests(srv, llm.RoleExplorer) {
				if strings.Contains(r.Messages[len(r.Messages)-1].Content, "Files to judge: ") {
					asked = append(asked, r)
				} else {
					reqs = append(reqs, r)
				}
			}
			before, after := allText(reqs[1]), allText(reqs[2])
			if !strings.Contains(before, "MARKER_A_RAW") {
				t.Fatal("the raw window was never shown")
			}
			if strings.Contains(after, "MARKER_A_RAW") || !strings.Contains(after, "MARKER_B_RAW") {
				t.Error("after compression the prompt must hold the newest window and not the older one")
			}
			want := []string{recordHeader, "src/data/table_a.ts: Generated lookup table A for the charts. Verdict: not relevant",
				"My current hypothesis: src/data/table_a.ts is only chart data"}
			if modelVerdicts {
				want = []string{recordHeader, "src/data/table_a.ts: Chart lookup table A. Verdict: not relevant, chart data only.",
					"My current hypothesis: platform.ts must register deepseek"}
			}
			for _, w := range want {
				if !strings.Contains(after, w) {
					t.Errorf("compressed prompt lacks %q:\n%s", w, after)
				}
			}
			if n := llm.CountTokens(reqs[2].Messages); n > opts.CompressAt {
				t.Errorf("prompt after compression = %d tokens, over %d", n, opts.CompressAt)
			}
			if n := len(roleRequests(srv, llm.RoleObserver)); n != 0 {
				t.Errorf("%d observer requests: the verdicts are asked in the explorer's conversation", n)
			}
			if !modelVerdicts {
				if len(asked) != 0 {
					t.Errorf("%d verdict questions with model verdicts off", len(asked))
				}
				return
			}
			// The question follows the conversation the explorer's last
			// request held, in the same shape (tools and all), so a prompt
			// cache serves everything before it.
			if len(asked) != 1 {
				t.Fatalf("%d verdict questions, want 1", len(asked))
			}
			q, prev := asked[0], reqs[1]
			if !slices.Equal(q.Tools, prev.Tools) || len(q.Messages) <= len(prev.Messages) {
				t.Fatalf("verdict question: %d tools, %d messages; last step: %d tools, %d messages",
					len(q.Tools), len(q.Messages), len(prev.Tools), len(prev.Messages))
			}
			for i := 0; i < len(prev.Messages)-1; i++ { // the last one carried the step's reminder
				if q.Messages[i].Role != prev.Messages[i].Role || q.Messages[i].Content != prev.Messages[i].Content {
					t.Errorf("verdict question's message %d differs from the conversation's", i)
				}
			}
			if !strings.Contains(allText(q), "MARKER_A_RAW") {
				t.Error("the verdict question does not show the turns being dropped")
			}
		})
	}
}

func TestObserverSuggestionInjectedOnlyWhenGiven(t *testing.T) {
	t.Parallel()
	ws := openWS(t, copyTree(t, "testdata/platforms"))
	const hint = "Stop listing folders; read src/data/platform.ts."
	srv, client := scripted(t, llmtest.Script{
		llmtest.Call("list_dir", `{"path":"src"}`),
		llmtest.Call("list_dir", `{"path":"src/app"}`),
		llmtest.Reply(`{"analysis":"I keep listing folders.","next":"continue","suggestion":"` + hint + `"}`).
			When(llmtest.Expect{Role: "observer", Last: "I did: list_dir src/app"}),
		llmtest.Call("read_file", `{"path":"src/data/platform.ts"}`).When(llmtest.Expect{Role: "explorer", Last: hint}),
		llmtest.Call("preview_file", `{"path":"src/data/openai.ts"}`),
		llmtest.Reply("```json\n{\"analysis\":\"On track.\",\"next\":\"continue\",\"suggestion\":\"\"}\n```").
			When(llmtest.Expect{Role: "observer"}),
		llmtest.Call("submit_spec", submitPlatform).When(llmtest.Expect{Role: "explorer", LastRole: "tool"}),
	})
	res, err := New(client, ws, nil, Options{ObserveEvery: 2}).Explore(t.Context(), Issue{Title: "Add DeepSeek"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := roleRequests(srv, llm.RoleExplorer)
	for i, r := range reqs {
		n := strings.Count(allText(r), observerNote)
		if want := map[bool]int{true: 1, false: 0}[i >= 2]; n != want {
			t.Errorf("explorer request %d holds %d suggestions, want %d", i+1, n, want)
		}
	}
	if len(res.Suggestions) != 1 || res.Suggestions[0] != hint {
		t.Errorf("suggestions = %q", res.Suggestions)
	}
	obs := roleRequests(srv, llm.RoleObserver)[0]
	if !obs.JSON || !strings.Contains(allText(obs), "I am a software engineer") || !strings.Contains(allText(obs), "Add DeepSeek") {
		t.Errorf("observer request is not the first-person trajectory:\n%s", allText(obs))
	}
}

func TestObserverOff(t *testing.T) {
	t.Parallel()
	ws := openWS(t, copyTree(t, "testdata/platforms"))
	srv, client := scripted(t, llmtest.Script{
		llmtest.Call("list_dir", `{"path":"src"}`),
		llmtest.Call("list_dir", `{"path":"src/app"}`),
		llmtest.Call("submit_spec", submitPlatform).When(llmtest.Expect{Role: "explorer"}),
	})
	if _, err := New(client, ws, nil, Options{ObserveEvery: 1, NoObserver: true}).Explore(t.Context(), Issue{Title: "x"}); err != nil {
		t.Fatal(err)
	}
	if n := len(roleRequests(srv, llm.RoleObserver)); n != 0 {
		t.Errorf("observer called %d times while off", n)
	}
}

func TestBudgetStopsGivePartialSpec(t *testing.T) {
	t.Parallel()
	steps := llmtest.Script{
		llmtest.Call("read_file", `{"path":"src/data/platform.ts"}`).WithUsage(2500, 20, 0),
		{Reply: llmtest.Answer{Content: "So src/data/platform.ts is where deepseek must be registered.",
			ToolCalls: []llmtest.CallSpec{{Name: "preview_file", Args: map[string]any{"path": "src/lib/format.ts"}}},
			Usage:     &llmtest.Usage{Prompt: 2600, Completion: 20}}},
		llmtest.Call("list_dir", `{"path":"src/app"}`).WithUsage(2700, 20, 0),
	}
	tests := []struct {
		name   string
		budget llm.Budget
		script llmtest.Script
		reason llm.StopReason
		note   string
	}{
		{"steps", llm.Budget{MaxSteps: 3}, steps, llm.StopStepLimit, "step limit (3 steps)"},
		{"tokens", llm.Budget{MaxTokens: 5000}, steps[:2], llm.StopTokenBudget, "token budget"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := openWS(t, copyTree(t, "testdata/platforms"))
			_, client := scripted(t, tc.script)
			res, err := New(client, ws, nil, Options{Budget: tc.budget, NoObserver: true}).
				Explore(t.Context(), Issue{Title: "Add DeepSeek to the platforms"})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Spec
			if res.Reason != tc.reason || !s.Partial || !strings.Contains(s.Note, tc.note) {
				t.Fatalf("reason %s, spec %+v", res.Reason, s)
			}
			if len(s.Files) == 0 || s.Files[0].Path != "src/data/platform.ts" {
				t.Errorf("partial spec files = %+v, want platform.ts judged relevant", s.Files)
			}
			for _, f := range s.Files {
				if f.Path == "src/lib/format.ts" {
					t.Errorf("format.ts judged relevant: %+v", f)
				}
			}
		})
	}
}

func TestObserverBudget(t *testing.T) {
	t.Parallel()
	ws := openWS(t, copyTree(t, "testdata/platforms"))
	srv, client := scripted(t, llmtest.Script{
		llmtest.Call("list_dir", `{"path":"src"}`),
		llmtest.Reply(`{"analysis":"fine","next":"continue","suggestion":""}`).When(llmtest.Expect{Role: "observer"}),
		llmtest.Call("list_dir", `{"path":"src/app"}`).When(llmtest.Expect{Role: "explorer"}),
		llmtest.Call("list_dir", `{"path":"src/lib"}`).When(llmtest.Expect{Role: "explorer"}),
		llmtest.Call("submit_spec", submitPlatform).When(llmtest.Expect{Role: "explorer"}),
	})
	opts := Options{ObserveEvery: 1, ObserverBudget: llm.Budget{MaxSteps: 1}}
	if _, err := New(client, ws, nil, opts).Explore(t.Context(), Issue{Title: "x"}); err != nil {
		t.Fatal(err)
	}
	if n := len(roleRequests(srv, llm.RoleObserver)); n != 1 {
		t.Errorf("observer called %d times, budget 1", n)
	}
}

// The observer's log grows append-only while it fits its room: each step
// renders the same in every later request, so a provider's prefix cache
// serves all but the newest steps. Past the room it still fits.
func TestObserverLogIsAppendOnly(t *testing.T) {
	t.Parallel()
	var log []llm.Message
	for i := range 8 {
		log = append(log,
			llm.Message{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: fmt.Sprint(i), Name: "read_file",
				Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, i)}}},
			llm.Message{Role: llm.ToolRole, ToolCallID: fmt.Sprint(i), Content: strings.Repeat(fmt.Sprintf("line %d of a long file\n", i), 300)})
	}
	const room = 6000
	prev := ""
	for k := 2; k <= len(log); k += 2 {
		got := observerLog(log[:k], room)
		if n := llm.CountText(got); n > room {
			t.Fatalf("%d steps: %d tokens, room %d", k/2, n, room)
		}
		if llm.CountText(renderSteps(log[:k], observerShare)) <= room && !strings.HasPrefix(got, prev) {
			t.Fatalf("%d steps: the earlier request's log is not a prefix of this one:\nearlier: %.300q\nnow:     %.300q", k/2, prev, got)
		}
		prev = got
	}
	if !strings.Contains(prev, "earlier log cut") && llm.CountText(renderSteps(log, observerShare)) > room {
		t.Errorf("past its room the log is cut")
	}
}
