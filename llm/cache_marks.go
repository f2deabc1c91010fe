package llm

import "encoding/json"

// cacheControl is the breakpoint Anthropic's prompt cache (and the
// gateways that pass it through) reads on a content part.
var cacheControl = json.RawMessage(`{"type":"ephemeral"}`)

// markedTail is how many of the newest user and tool messages get a
// breakpoint: the newest makes the whole request a cache write, the one
// before it is where the previous request's write is read back. With the
// system prompt that is three of the four breakpoints Anthropic allows.
const markedTail = 2

// markCache adds cache_control breakpoints to a chat completions body: on
// the first system message (the role's instructions; tools come before it
// in the cached prefix) and on the newest markedTail user or tool
// messages. A marked message's string content becomes one text part, the
// form the breakpoint needs; messages already in parts are left alone.
func markCache(body []byte) ([]byte, error) {
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(req["messages"], &msgs); err != nil {
		return nil, err
	}
	marks := make([]int, 0, 1+markedTail)
	for i, m := range msgs {
		if role(m) == System {
			marks = append(marks, i)
			break
		}
	}
	for i, tail := len(msgs)-1, 0; i >= 0 && tail < markedTail; i-- {
		if r := role(msgs[i]); r == User || r == ToolRole {
			marks, tail = append(marks, i), tail+1
		}
	}
	for _, i := range marks {
		var text string
		if json.Unmarshal(msgs[i]["content"], &text) != nil || text == "" {
			continue
		}
		part, err := json.Marshal([]map[string]any{{"type": "text", "text": text, "cache_control": cacheControl}})
		if err != nil {
			return nil, err
		}
		msgs[i]["content"] = part
	}
	var err error
	if req["messages"], err = json.Marshal(msgs); err != nil {
		return nil, err
	}
	return json.Marshal(req)
}

// role is a wire message's role.
func role(m map[string]json.RawMessage) string {
	var r string
	_ = json.Unmarshal(m["role"], &r)
	return r
}
