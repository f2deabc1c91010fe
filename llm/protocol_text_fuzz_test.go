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
