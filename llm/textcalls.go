package llm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Tool calls written as text. Models whose server does not parse their
// tool-call format answer with the call in the content and no tool_calls;
// in the tools protocol the loop takes such a reply as the calls it names,
// not as a final answer. The shapes models actually write
// (textcalls_shapes.go reads each):
//   - bare JSON, a list of calls or objects one after another
//     (qwen2.5-coder on Ollama: https://github.com/ollama/ollama/issues/12174),
//     with "arguments" or Llama's "parameters";
//   - Hermes / Qwen <tool_call>{…}</tool_call>;
//   - Qwen3-Coder's XML, <tool_call><function=name><parameter=x>…</parameter></function></tool_call>;
//   - Mistral's [TOOL_CALLS][{"name":…,"arguments":…}] and [TOOL_CALLS]name[ARGS]{…};
//   - Llama 3.x's <|python_tag|>{"name":…,"parameters":…};
//   - gpt-oss harmony: <|channel|>commentary to=functions.name <|constrain|>json<|message|>{…}<|call|>;
//   - a ```json fence, or a sentence and then the JSON.

// textCall is the JSON shape of a call written as text.
type textCall struct {
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	Parameters json.RawMessage `json:"parameters"`
}

// callMarkers are the tags only a call written as text carries.
var callMarkers = regexp.MustCompile(`<tool_call>|<function[=_]|\[TOOL_CALLS\]|<\|python_tag\|>|to=functions\.|<\|call\|>|<\|tool_call`)

// callJSONStart is a JSON object naming a function at the start of a reply
// or a line, fenced or not.
var callJSONStart = regexp.MustCompile(`(?m)^\s*(` + "```" + `(json)?\s*)?\[?\s*\{\s*"(name|function|tool)"\s*:`)

// LooksLikeTextCall reports whether text holds a tool call written as text
// (one the loop may or may not have been able to run): a call's tags, or a
// JSON object naming a function.
func LooksLikeTextCall(text string) bool {
	return callMarkers.MatchString(text) || callJSONStart.MatchString(text)
}

// parseTextCalls finds calls of known tools written in content, in the
// shapes above. It returns the calls (ids from textCallID) and the content
// left around them; no calls when any candidate names an unknown tool or is
// not a call, so prose with JSON in it stays prose.
func parseTextCalls(content string, step int, known map[string]Tool) ([]ToolCall, string) {
	calls, rest, ok := findTextCalls(content, known)
	if !ok || len(calls) == 0 {
		return nil, content
	}
	for i := range calls {
		calls[i].ID = textCallID(step, i+1)
	}
	return calls, strings.TrimSpace(rest)
}

// textCallID is the id of the n-th call written as text at step: nine
// alphanumeric characters, since Mistral's chat templates refuse any other
// ("Tool call IDs should be alphanumeric strings with length 9").
func textCallID(step, n int) string {
	return fmt.Sprintf("tc%04d%03d", step%10000, n%1000)
}

// findTextCalls tries each shape in turn; the first whose markers appear
// decides (a reply mixing shapes is read by its first).
func findTextCalls(content string, known map[string]Tool) ([]ToolCall, string, bool) {
	for _, shape := range []func(string, map[string]Tool) ([]ToolCall, string, bool){
		harmonyCalls, deepSeekCalls, mistralCalls, pythonTagCalls, toolCallTags, functionTags, fencedCalls,
	} {
		if calls, rest, matched := shape(content, known); matched {
			return calls, rest, calls != nil
		}
	}
	if calls, ok := decodeTextCalls(content, known); ok {
		return calls, "", true
	}
	return proseThenJSON(content, known)
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
		tc, ok := decodeCall(o, known)
		if !ok {
			return nil, false
		}
		calls = append(calls, tc)
	}
	return calls, len(calls) > 0
}

// decodeCall reads one call object of a known tool.
func decodeCall(o json.RawMessage, known map[string]Tool) (ToolCall, bool) {
	var tc textCall
	if json.Unmarshal(o, &tc) != nil || tc.Name == "" {
		return ToolCall{}, false
	}
	if _, ok := known[tc.Name]; !ok {
		return ToolCall{}, false
	}
	args := tc.Arguments
	if len(args) == 0 {
		args = tc.Parameters
	}
	return ToolCall{Name: tc.Name, Arguments: argsText(args)}, true
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
