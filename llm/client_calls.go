package llm

import (
	"cmp"
	"fmt"
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

// sendsSingleCalls says whether model's history goes one call per turn:
// learnt, or a gpt-oss model, whose template renders only the first call
// of a turn ("We assume max 1 tool call per message") and names every
// result after it, without an error to learn from.
func (c *Client) sendsSingleCalls(model string) bool {
	_, ok := c.singleCalls.Load(model)
	return ok || strings.Contains(strings.ToLower(model), "gpt-oss")
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

// Chat templates that know no tool role raise "Conversation roles must
// alternate" (Gemma's) or "Only user, system and assistant roles are
// supported!" (the Mistral Small and Devstral GGUFs' without tools) on a
// history holding tool calls and results, which the bot makes from
// calls the model wrote as text. The client learns it from that refusal,
// per model, and from then on sends each call as the fenced JSON the model
// could have written (and the bot reads back) and each result as the
// user's message.

// rolesMustAlternate says whether err is a template's refusal of roles
// other than user and assistant.
func rolesMustAlternate(err error) bool {
	code, _ := statusOf(err)
	msg := strings.ToLower(err.Error())
	return (code == 400 || code == 422 || code == 500) &&
		(strings.Contains(msg, "roles must alternate") || strings.Contains(msg, "roles are supported"))
}

// hasToolTurns says whether ms holds a tool call or a tool result.
func hasToolTurns(ms []Message) bool {
	for _, m := range ms {
		if m.Role == ToolRole || len(m.ToolCalls) > 0 {
			return true
		}
	}
	return false
}

// sendsToolsAsText says whether model's history goes without tool roles.
func (c *Client) sendsToolsAsText(model string) bool {
	_, ok := c.toolsAsText.Load(model)
	return ok
}

// toolTurnsAsText returns ms with every tool call written into its
// assistant message as fenced JSON and every tool result as a user message
// naming its tool (hygiene joins it to the user message next to it); ms is
// not modified.
func toolTurnsAsText(ms []Message) []Message {
	if !hasToolTurns(ms) {
		return ms
	}
	out := make([]Message, 0, len(ms))
	for _, m := range ms {
		switch {
		case m.Role == ToolRole:
			out = append(out, Message{Role: User, Content: fmt.Sprintf("[result of %s]\n%s", cmp.Or(m.Name, "the call"), m.Content)})
		case len(m.ToolCalls) > 0:
			var b strings.Builder
			b.WriteString(strings.TrimSpace(m.Content))
			for _, tc := range m.ToolCalls {
				args := cmp.Or(strings.TrimSpace(tc.Arguments), "{}")
				fmt.Fprintf(&b, "\n```json\n{\"name\": %q, \"arguments\": %s}\n```", tc.Name, args)
			}
			out = append(out, Message{Role: Assistant, Content: strings.TrimSpace(b.String()), Reasoning: m.Reasoning})
		default:
			out = append(out, m)
		}
	}
	return out
}
