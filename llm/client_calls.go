package llm

import (
	"strings"
)

// Llama 3.x's chat templates (and others copied from them) raise "This
// model only supports single tool-calls at once!" on an assistant message
// with more than one call, which the bot's own history can hold (glued calls
// split, several calls written as text, a model that called in parallel).
// The client learns it from that refusal, per model, and from then on sends
// each such turn as one assistant message per call, each followed by its
// result: the same conversation in the shape the template takes.

// singleCallsOnly says whether err is a template's refusal of an assistant
// message with several calls.
func singleCallsOnly(err error) bool {
	code, _ := statusOf(err)
	return (code == 400 || code == 422 || code == 500) && strings.Contains(strings.ToLower(err.Error()), "single tool-call")
}

// hasParallelCalls says whether an assistant message of ms has several calls.
func hasParallelCalls(ms []Message) bool {
	for _, m := range ms {
		if m.Role == Assistant && len(m.ToolCalls) > 1 {
			return true
		}
	}
	return false
}

// sendsSingleCalls says whether model's history goes one call per turn.
func (c *Client) sendsSingleCalls(model string) bool {
	_, ok := c.singleCalls.Load(model)
	return ok
}

// splitCalls returns ms with every assistant message of several calls
// split into one per call, each followed by its result (the text and the
// reasoning stay with the first); ms is not modified.
func splitCalls(ms []Message) []Message {
	if !hasParallelCalls(ms) {
		return ms
	}
	out := make([]Message, 0, len(ms)+4)
	for i := 0; i < len(ms); i++ {
		m := ms[i]
		if m.Role != Assistant || len(m.ToolCalls) < 2 {
			out = append(out, m)
			continue
		}
		results := map[string]Message{}
		var order []string
		for i+1 < len(ms) && ms[i+1].Role == ToolRole {
			i++
			results[ms[i].ToolCallID] = ms[i]
			order = append(order, ms[i].ToolCallID)
		}
		for k, tc := range m.ToolCalls {
			turn := Message{Role: Assistant, ToolCalls: []ToolCall{tc}}
			if k == 0 {
				turn.Content, turn.Reasoning = m.Content, m.Reasoning
			}
			out = append(out, turn)
			if r, ok := results[tc.ID]; ok {
				out = append(out, r)
				delete(results, tc.ID)
			}
		}
		for _, id := range order { // results of no call: hygiene makes them user text
			if r, ok := results[id]; ok {
				out = append(out, r)
			}
		}
	}
	return out
}
