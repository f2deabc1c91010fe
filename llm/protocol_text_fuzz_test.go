package llm

import (
	"context"
	"encoding/json"
	"testing"
)

// FuzzTextAction: whatever a model writes, the parser never panics and an
// action always carries a JSON object as arguments.
// Run: go test -run '^$' -fuzz FuzzTextAction -fuzztime 30s ./llm
func FuzzTextAction(f *testing.F) {
	for _, s := range []string{
		"open=>src/app.go", "grep=>{\"pattern\": \"x\",\n \"glob\": \"*\"}", "submit=>\nline one\nline two\n```",
		"text\nopen=> ", "x=>y\nopen=>{bad", "日本=>語", "open=>\xff\xfe", "",
	} {
		f.Add(s)
	}
	open := NewTool("open", "", func(context.Context, struct {
		Path string `json:"path"`
	}) (ToolResult, error) {
		return ToolResult{}, nil
	})
	known := map[string]Tool{"open": open}
	f.Fuzz(func(t *testing.T, s string) {
		calls, _ := parseTextAction(s, 1, known)
		for _, c := range calls {
			var obj map[string]any
			if err := json.Unmarshal([]byte(c.Arguments), &obj); err != nil {
				t.Fatalf("arguments %q of %q are not a JSON object: %v", c.Arguments, s, err)
			}
		}
	})
}

// FuzzRepairs: whatever a model writes as arguments or as text, repair,
// splitting and text calls never panic, and what they give the history is
// always one JSON object per call (strict servers re-parse it).
// Run: go test -run '^$' -fuzz FuzzRepairs -fuzztime 30s ./llm
func FuzzRepairs(f *testing.F) {
	for _, s := range []string{
		`{"path":"a"}{"path":"b"}`, "```json\n{\"path\":\"a\"}\n```", `"{\"path\":\"a\"}"`, `{"path":"a"}}`,
		`{"path": "a`, `<tool_call>{"name":"open","arguments":{"path":"x"}}`, `[{"name":"open","parameters":"{}"}]`, "",
		"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>open\n```json\n{\"path\":\"a\"}\n```<｜tool▁call▁end｜>",
		"<｜tool▁call▁begin｜>open<｜tool▁sep｜>{\"path\":\"a\"}", "<｜tool▁call▁begin｜>open<｜tool▁sep｜>",
	} {
		f.Add(s)
	}
	open := NewTool("open", "", func(context.Context, struct {
		Path string `json:"path"`
	}) (ToolResult, error) {
		return ToolResult{}, nil
	})
	known := map[string]Tool{"open": open}
	f.Fuzz(func(t *testing.T, s string) {
		if fixed, ok := repairArgs(s); ok && !isObject(fixed) {
			t.Fatalf("repairArgs(%q) = %q, not an object", s, fixed)
		}
		calls, _ := parseTextCalls(s, 1, known)
		calls = append(calls, normalizeCalls([]ToolCall{{Name: "open", Arguments: s}})...)
		for _, c := range hygiene([]Message{{Role: Assistant, ToolCalls: calls}}) {
			for _, tc := range c.ToolCalls {
				if !isObject(tc.Arguments) {
					t.Fatalf("%q: the history carries %q", s, tc.Arguments)
				}
			}
		}
	})
}
