package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// hygiene returns msgs in a shape every strict OpenAI-compatible server
// accepts, whatever the roles appended (llmtest's strict mode plays these
// rules with each provider's own message):
//   - tool-call arguments that are not a JSON object are sent as {} (vLLM
//     and llama-server re-parse old arguments and refuse the whole request);
//   - an assistant message with neither text nor calls gets a placeholder
//     text (vLLM and Anthropic's layer refuse it);
//   - every tool call is answered by a tool message and every tool message
//     answers a call (OpenAI refuses either gap): a missing result is
//     filled in, a stray one becomes a user message;
//   - a user message right after tool results is folded into the last
//     result (Mistral: "Unexpected role 'user' after role 'tool'"), and
//     user messages in a row are joined (chat templates that alternate);
//   - every tool-call id is nine alphanumerics (wireID): Mistral-family
//     chat templates raise "Tool call IDs should be alphanumeric strings
//     with length 9!" for any other, such as the 32-character ids
//     llama-server gives calls whose model wrote none.
//
// msgs is not modified.
func hygiene(msgs []Message) []Message {
	msgs = wireIDs(msgs)
	out := make([]Message, 0, len(msgs))
	pending := map[string]string{} // unanswered call id → tool name
	var order []string
	flush := func() {
		for _, id := range order {
			if name, ok := pending[id]; ok {
				out = append(out, Message{Role: ToolRole, ToolCallID: id, Name: name, Content: "(no result: the call was not run)"})
			}
		}
		pending, order = map[string]string{}, nil
	}
	for _, m := range msgs {
		if m.Role == ToolRole {
			if _, ok := pending[m.ToolCallID]; ok {
				delete(pending, m.ToolCallID)
				out = append(out, m)
				continue
			}
			m = Message{Role: User, Content: fmt.Sprintf("[result of %s]\n%s", m.Name, m.Content)}
		}
		flush()
		prev := len(out) - 1
		switch {
		case m.Role == User && prev >= 0 && out[prev].Role == ToolRole:
			out[prev].Content += "\n\n" + m.Content
			continue
		case m.Role == User && prev >= 0 && out[prev].Role == User:
			out[prev].Content += "\n\n" + m.Content
			continue
		case m.Role == Assistant:
			m = cleanAssistant(m)
			for _, tc := range m.ToolCalls {
				pending[tc.ID] = tc.Name
				order = append(order, tc.ID)
			}
		}
		out = append(out, m)
	}
	flush()
	return out
}

// wireIDs returns msgs with every tool-call id as wireID spells it; msgs
// is not modified.
func wireIDs(msgs []Message) []Message {
	var out []Message
	for i, m := range msgs {
		changed := m.ToolCallID != wireID(m.ToolCallID)
		for _, tc := range m.ToolCalls {
			changed = changed || tc.ID != wireID(tc.ID)
		}
		if !changed {
			continue
		}
		if out == nil {
			out = append([]Message(nil), msgs...)
		}
		m.ToolCallID = wireID(m.ToolCallID)
		if len(m.ToolCalls) > 0 {
			m.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
			for k := range m.ToolCalls {
				m.ToolCalls[k].ID = wireID(m.ToolCalls[k].ID)
			}
		}
		out[i] = m
	}
	if out == nil {
		return msgs
	}
	return out
}

// wireID is id when it is nine alphanumerics (or empty), else nine
// alphanumerics derived from it: the same id always gives the same one, so
// a call and its result still pair and every request's history stays a
// prefix of the next (prompt caches).
func wireID(id string) string {
	if id == "" || len(id) == 9 && strings.IndexFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return id
	}
	const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	n := h.Sum64()
	b := make([]byte, 9)
	for i := range b {
		b[i] = digits[n%62]
		n /= 62
	}
	return string(b)
}

// cleanAssistant gives an assistant message valid arguments and some text
// when it has no calls.
func cleanAssistant(m Message) Message {
	if len(m.ToolCalls) > 0 {
		calls := make([]ToolCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			if !isObject(tc.Arguments) {
				tc.Arguments = "{}"
			}
			calls[i] = tc
		}
		m.ToolCalls = calls
	}
	if strings.TrimSpace(m.Content) == "" && len(m.ToolCalls) == 0 {
		m.Content = "(empty reply)"
	}
	return m
}

// isObject says whether s is one JSON object (empty counts: servers read it
// as {}).
func isObject(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return true
	}
	var obj map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &obj) == nil
}

// toOpenAIMessages converts our messages after hygiene. Reasoning goes
// back as reasoning_content only when withReasoning (models that need it).
// The second result lists the tool calls whose provider data (Extra) must
// be patched into the request body, which go-openai cannot carry.
func toOpenAIMessages(ms []Message, withReasoning bool) ([]openai.ChatCompletionMessage, []extraPatch) {
	ms = hygiene(ms)
	out := make([]openai.ChatCompletionMessage, 0, len(ms))
	var patches []extraPatch
	for i, m := range ms {
		om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name}
		if m.Role == ToolRole {
			// The tool message schema has no name; strict servers reject it.
			om.Name = ""
		}
		if m.Role == Assistant && withReasoning {
			om.ReasoningContent = m.Reasoning
		}
		for j, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
				ID: tc.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments},
			})
			if len(tc.Extra) > 0 {
				patches = append(patches, extraPatch{msg: i, call: j, fields: tc.Extra})
			}
		}
		out = append(out, om)
	}
	return out, patches
}

// extraPatch adds a tool call's provider fields (a JSON object) to
// messages[msg].tool_calls[call] of the request body.
type extraPatch struct {
	msg, call int
	fields    json.RawMessage
}

// patchBody applies patches to a chat completions request body.
func patchBody(body []byte, patches []extraPatch) ([]byte, error) {
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(req["messages"], &msgs); err != nil {
		return nil, err
	}
	for _, p := range patches {
		if p.msg >= len(msgs) {
			continue
		}
		var calls []map[string]json.RawMessage
		if err := json.Unmarshal(msgs[p.msg]["tool_calls"], &calls); err != nil || p.call >= len(calls) {
			continue
		}
		var fields map[string]json.RawMessage
		if json.Unmarshal(p.fields, &fields) != nil {
			continue
		}
		for k, v := range fields {
			calls[p.call][k] = v
		}
		msgs[p.msg]["tool_calls"], _ = json.Marshal(calls)
	}
	req["messages"], _ = json.Marshal(msgs)
	return json.Marshal(req)
}

// patchRequest rewrites an outgoing request's body with the hint's patches
// and, with marks, its cache breakpoints.
func patchRequest(req *http.Request, patches []extraPatch, marks bool) (*http.Request, error) {
	if (len(patches) == 0 && !marks) || req.Body == nil || req.Method != http.MethodPost {
		return req, nil
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(patches) > 0 {
		if patched, err := patchBody(body, patches); err == nil {
			body = patched
		}
	}
	if marks {
		if marked, err := markCache(body); err == nil {
			body = marked
		}
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return req, nil
}

// callExtras reads the non-standard fields of raw tool calls (Gemini's
// extra_content), keyed by position.
func callExtras(calls []json.RawMessage) map[int]json.RawMessage {
	var out map[int]json.RawMessage
	for pos, raw := range calls {
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil {
			continue
		}
		for _, k := range []string{"index", "id", "type", "function"} {
			delete(fields, k)
		}
		if len(fields) == 0 {
			continue
		}
		b, err := json.Marshal(fields)
		if err != nil {
			continue
		}
		if out == nil {
			out = map[int]json.RawMessage{}
		}
		out[pos] = b
	}
	return out
}

// rawDelta is the part of a raw stream chunk the typed decoding loses.
type rawDelta struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Reasoning string            `json:"reasoning"`
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"delta"`
	} `json:"choices"`
}

// readRawDelta returns choice 0's delta.reasoning (OpenRouter's and
// Ollama's name for reasoning_content) and the extras of its tool calls.
func readRawDelta(raw []byte) (string, map[int]json.RawMessage) {
	if !bytes.Contains(raw, []byte(`"reasoning"`)) && !bytes.Contains(raw, []byte(`"tool_calls"`)) {
		return "", nil
	}
	var v rawDelta
	if json.Unmarshal(raw, &v) != nil {
		return "", nil
	}
	for _, ch := range v.Choices {
		if ch.Index == 0 {
			return ch.Delta.Reasoning, callExtras(ch.Delta.ToolCalls)
		}
	}
	return "", nil
}

// addRawMessage reads from a plain JSON reply what go-openai's types drop:
// message.reasoning (Ollama's and OpenRouter's name for reasoning_content)
// and the tool calls' provider fields (Gemini's extra_content).
func addRawMessage(resp *Response, body []byte) {
	var v struct {
		Choices []struct {
			Message struct {
				Reasoning string            `json:"reasoning"`
				ToolCalls []json.RawMessage `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(body, &v) != nil || len(v.Choices) == 0 {
		return
	}
	m := v.Choices[0].Message
	if m.Reasoning != "" && resp.Message.Reasoning == "" {
		resp.Message.Content, resp.Message.Reasoning = splitThink(resp.Message.Content, m.Reasoning)
	}
	extras := callExtras(m.ToolCalls)
	for i := range resp.Message.ToolCalls {
		if e := extras[i]; e != nil && i < len(m.ToolCalls) {
			resp.Message.ToolCalls[i].Extra = e
		}
	}
}
