package llm

import (
	"encoding/json"
	"regexp"
	"strings"
)

// The shapes of textcalls.go, one reader each. A reader returns matched
// false when its markers are absent; matched with nil calls when they are
// present but do not hold calls of known tools (the reply stays prose).

var (
	toolCallTag = regexp.MustCompile(`(?s)<tool_call>\s*(.*?)\s*(?:</tool_call>|$)`)
	jsonFence   = regexp.MustCompile("(?s)```(?:json)?[ \\t]*\\n(.*?)\\n?```")
	// functionTag is Qwen3-Coder's call: <function=name> then parameters.
	functionTag  = regexp.MustCompile(`(?s)<function=([^>\s]+)>(.*?)(?:</function>|$)`)
	parameterTag = regexp.MustCompile(`(?s)<parameter=([^>\s]+)>\n?(.*?)\n?</parameter>`)
	// harmonyCall is gpt-oss's: the recipient (to=functions.name) in the
	// header, the arguments after <|message|>, ended by <|call|>.
	harmonyCall = regexp.MustCompile(`(?s)to=functions\.([A-Za-z0-9_.-]+?)\s*(?:<\|channel\|>\s*\w+\s*)?(?:<\|constrain\|>\s*\w+\s*|json\s*)?<\|message\|>(.*?)(?:<\|call\|>|<\|end\|>|<\|return\|>|$)`)
	// deepSeekCall is DeepSeek's call: V3 and R1 write
	// <｜tool▁call▁begin｜>function<｜tool▁sep｜>name, then the arguments
	// fenced as json; V3.1 writes name<｜tool▁sep｜>{…}. Either ends with
	// <｜tool▁call▁end｜>.
	deepSeekCall = regexp.MustCompile(`(?s)<｜tool▁call▁begin｜>\s*(?:function\s*<｜tool▁sep｜>\s*([A-Za-z0-9_.-]+)|([A-Za-z0-9_.-]+)\s*<｜tool▁sep｜>)(.*?)(?:<｜tool▁call▁end｜>|$)`)
	// mistralNamed is [TOOL_CALLS]name[ARGS]{…} (optionally [CALL_ID]id).
	mistralNamed = regexp.MustCompile(`\[TOOL_CALLS\]\s*([A-Za-z0-9_.-]+)\s*(?:\[CALL_ID\]\s*[A-Za-z0-9]+\s*)?\[ARGS\]`)
)

func toolCallTags(content string, known map[string]Tool) ([]ToolCall, string, bool) {
	if !strings.Contains(content, "<tool_call>") {
		return nil, "", false
	}
	var calls []ToolCall
	for _, m := range toolCallTag.FindAllStringSubmatch(content, -1) {
		var cs []ToolCall
		var ok bool
		if strings.Contains(m[1], "<function=") {
			cs, _, ok = functionTags(m[1], known)
			ok = ok && cs != nil
		} else {
			cs, ok = decodeTextCalls(m[1], known)
		}
		if !ok {
			return nil, content, true
		}
		calls = append(calls, cs...)
	}
	return calls, toolCallTag.ReplaceAllString(content, ""), true
}

// functionTags reads Qwen3-Coder's XML calls: each parameter's text is its
// value, read as JSON when it is a number, boolean, object or list the
// tool's schema would accept, else as a string.
func functionTags(content string, known map[string]Tool) ([]ToolCall, string, bool) {
	ms := functionTag.FindAllStringSubmatch(content, -1)
	if ms == nil {
		return nil, "", false
	}
	var calls []ToolCall
	for _, m := range ms {
		if _, ok := known[m[1]]; !ok {
			return nil, content, true
		}
		args := map[string]any{}
		for _, p := range parameterTag.FindAllStringSubmatch(m[2], -1) {
			args[p[1]] = xmlValue(p[2])
		}
		b, _ := json.Marshal(args)
		calls = append(calls, ToolCall{Name: m[1], Arguments: string(b)})
	}
	return calls, functionTag.ReplaceAllString(content, ""), true
}

// xmlValue is a parameter's text as a JSON value: numbers, booleans,
// objects and lists as such, anything else the string itself.
func xmlValue(s string) any {
	t := strings.TrimSpace(s)
	if t == "true" || t == "false" || strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") || (t != "" && strings.Trim(t, "0123456789.-") == "") {
		var v any
		if json.Unmarshal([]byte(t), &v) == nil {
			return v
		}
	}
	return s
}

// mistralCalls reads [TOOL_CALLS] followed by a JSON list of calls, or by
// name[ARGS]{…} once or more.
func mistralCalls(content string, known map[string]Tool) ([]ToolCall, string, bool) {
	i := strings.Index(content, "[TOOL_CALLS]")
	if i < 0 {
		return nil, "", false
	}
	before, after := content[:i], content[i:]
	if locs := mistralNamed.FindAllStringSubmatchIndex(after, -1); locs != nil {
		var calls []ToolCall
		for k, l := range locs {
			end := len(after)
			if k+1 < len(locs) {
				end = locs[k+1][0]
			}
			name := after[l[2]:l[3]]
			args, ok := firstJSON(after[l[1]:end])
			if _, known := known[name]; !ok || !known {
				return nil, content, true
			}
			calls = append(calls, ToolCall{Name: name, Arguments: argsText(args)})
		}
		return calls, before, true
	}
	body := strings.TrimSpace(strings.TrimPrefix(after, "[TOOL_CALLS]"))
	raw, ok := firstJSON(body)
	if !ok {
		return nil, content, true
	}
	calls, ok := decodeTextCalls(string(raw), known)
	if !ok {
		return nil, content, true
	}
	return calls, before, true
}

// pythonTagCalls reads Llama 3.x's <|python_tag|> followed by call objects
// ({"name":…,"parameters":…}, several joined by ";").
func pythonTagCalls(content string, known map[string]Tool) ([]ToolCall, string, bool) {
	i := strings.Index(content, "<|python_tag|>")
	if i < 0 {
		return nil, "", false
	}
	body := content[i+len("<|python_tag|>"):]
	body = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body), "<|eom_id|>")), "<|eot_id|>"))
	var calls []ToolCall
	for _, part := range strings.Split(body, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		cs, ok := decodeTextCalls(part, known)
		if !ok {
			return nil, content, true
		}
		calls = append(calls, cs...)
	}
	return calls, content[:i], true
}

// deepSeekCalls reads DeepSeek's calls (V3, R1 and V3.1), which a server
// without DeepSeek's template or parser passes on as text.
func deepSeekCalls(content string, known map[string]Tool) ([]ToolCall, string, bool) {
	ms := deepSeekCall.FindAllStringSubmatchIndex(content, -1)
	if ms == nil {
		return nil, "", false
	}
	var calls []ToolCall
	for _, m := range ms {
		var name string
		if m[2] >= 0 {
			name = content[m[2]:m[3]]
		} else {
			name = content[m[4]:m[5]]
		}
		body := strings.TrimSpace(content[m[6]:m[7]])
		if f := jsonFence.FindStringSubmatch(body); f != nil {
			body = f[1]
		}
		args, ok := firstJSON(body)
		if _, known := known[name]; !ok || !known {
			return nil, content, true
		}
		calls = append(calls, ToolCall{Name: name, Arguments: argsText(args)})
	}
	rest := content[:ms[0][0]]
	if j := strings.Index(rest, "<｜tool▁calls▁begin｜>"); j >= 0 {
		rest = rest[:j]
	}
	return calls, rest, true
}

// harmonyCalls reads gpt-oss's harmony calls.
func harmonyCalls(content string, known map[string]Tool) ([]ToolCall, string, bool) {
	ms := harmonyCall.FindAllStringSubmatchIndex(content, -1)
	if ms == nil {
		return nil, "", false
	}
	var calls []ToolCall
	for _, m := range ms {
		name := content[m[2]:m[3]]
		args, ok := firstJSON(content[m[4]:m[5]])
		if _, known := known[name]; !ok || !known {
			return nil, content, true
		}
		calls = append(calls, ToolCall{Name: name, Arguments: argsText(args)})
	}
	// What the model said before its first call's header is the rest.
	rest := content[:ms[0][0]]
	if j := strings.LastIndex(rest, "<|start|>"); j >= 0 {
		rest = rest[:j]
	}
	rest = strings.ReplaceAll(strings.ReplaceAll(rest, "<|channel|>", ""), "<|end|>", "")
	return calls, rest, true
}

func fencedCalls(content string, known map[string]Tool) ([]ToolCall, string, bool) {
	ms := jsonFence.FindAllStringSubmatch(content, -1)
	if ms == nil {
		return nil, "", false
	}
	var calls []ToolCall
	for _, m := range ms {
		cs, ok := decodeTextCalls(m[1], known)
		if !ok {
			return nil, content, true
		}
		calls = append(calls, cs...)
	}
	return calls, jsonFence.ReplaceAllString(content, ""), true
}

// proseThenJSON reads a sentence or two and then the call's JSON, which
// runs to the end of the reply: the JSON starts a line, or follows ": ".
func proseThenJSON(content string, known map[string]Tool) ([]ToolCall, string, bool) {
	for i := 1; i < len(content); i++ {
		c := content[i]
		if c != '{' && c != '[' {
			continue
		}
		if prev := content[i-1]; prev != '\n' && !(prev == ' ' && i >= 2 && content[i-2] == ':') {
			continue
		}
		if calls, ok := decodeTextCalls(content[i:], known); ok {
			return calls, content[:i], true
		}
	}
	return nil, content, false
}

// firstJSON is the JSON value text starts with (after spaces), and whether
// one was there.
func firstJSON(text string) (json.RawMessage, bool) {
	dec := json.NewDecoder(strings.NewReader(strings.TrimSpace(text)))
	var raw json.RawMessage
	if dec.Decode(&raw) != nil {
		return nil, false
	}
	return raw, true
}
