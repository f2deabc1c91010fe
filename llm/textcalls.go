package llm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Tool calls written as text. Models whose server does not parse their
// tool-call format (qwen2.5-coder on Ollama writes bare JSON; Hermes-style
// templates write <tool_call>…</tool_call>; others fence a JSON object)
// answer with the call in the content and no tool_calls. In the tools
// protocol the loop takes such a reply as the calls it names, not as a
// final answer. Report: https://github.com/ollama/ollama/issues/12174.

var (
	toolCallTag = regexp.MustCompile(`(?s)<tool_call>\s*(.*?)\s*(?:</tool_call>|$)`)
	jsonFence   = regexp.MustCompile("(?s)```(?:json)?[ \\t]*\\n(.*?)\\n?```")
)

// textCall is the JSON shape of a call written as text.
type textCall struct {
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	Parameters json.RawMessage `json:"parameters"`
}

// parseTextCalls finds calls of known tools written in content: inside
// <tool_call> tags, in ```json fences, or as the whole reply (one object,
// a list, or objects one after another). It returns the calls (ids
// text_<step>_<n>) and the content left around them; no calls when any
// candidate names an unknown tool or is not a call, so prose with JSON in
// it stays prose.
func parseTextCalls(content string, step int, known map[string]Tool) ([]ToolCall, string) {
	var blocks []string
	rest := content
	switch {
	case strings.Contains(content, "<tool_call>"):
		for _, m := range toolCallTag.FindAllStringSubmatch(content, -1) {
			blocks = append(blocks, m[1])
		}
		rest = toolCallTag.ReplaceAllString(content, "")
	case jsonFence.MatchString(content):
		for _, m := range jsonFence.FindAllStringSubmatch(content, -1) {
			blocks = append(blocks, m[1])
		}
		rest = jsonFence.ReplaceAllString(content, "")
	default:
		blocks, rest = []string{content}, ""
	}
	var calls []ToolCall
	for _, b := range blocks {
		cs, ok := decodeTextCalls(b, known)
		if !ok {
			return nil, content
		}
		calls = append(calls, cs...)
	}
	if len(calls) == 0 {
		return nil, content
	}
	for i := range calls {
		calls[i].ID = fmt.Sprintf("text_%d_%d", step, i+1)
	}
	return calls, strings.TrimSpace(rest)
}

// decodeTextCalls reads one block: a call object, a list of them, or call
// objects one after another.
func decodeTextCalls(block string, known map[string]Tool) ([]ToolCall, bool) {
	block = strings.TrimSpace(block)
	var objs []json.RawMessage
	switch {
	case strings.HasPrefix(block, "["):
		if json.Unmarshal([]byte(block), &objs) != nil {
			return nil, false
		}
	case strings.HasPrefix(block, "{"):
		if parts := gluedObjects(block); parts != nil {
			for _, p := range parts {
				objs = append(objs, json.RawMessage(p))
			}
		} else {
			objs = []json.RawMessage{json.RawMessage(block)}
		}
	default:
		return nil, false
	}
	var calls []ToolCall
	for _, o := range objs {
		var tc textCall
		if json.Unmarshal(o, &tc) != nil || tc.Name == "" {
			return nil, false
		}
		if _, ok := known[tc.Name]; !ok {
			return nil, false
		}
		args := tc.Arguments
		if len(args) == 0 {
			args = tc.Parameters
		}
		calls = append(calls, ToolCall{Name: tc.Name, Arguments: argsText(args)})
	}
	return calls, len(calls) > 0
}

// argsText returns arguments given as an object or as a JSON string
// holding one.
func argsText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	return string(raw)
}
