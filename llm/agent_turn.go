package llm

import (
	"fmt"
	"strings"
)

// turn classifies a reply the loop cannot act on.
type turn int

const (
	turnOK       turn = iota
	turnCut           // finish_reason length: the reply is incomplete
	turnFiltered      // finish_reason content_filter
	turnRefused       // a structured refusal
	turnEmpty         // no text and no call
	turnRepeated      // a repetition loop (Repetitive, or cut by the stream reader)
)

// maxRepeats is how many looping replies in a row end the run.
const maxRepeats = 2

// classify says whether resp can be acted on. A cut reply whose calls are
// all complete (valid arguments) in the tools protocol is acted on; any
// other cut reply is not, since its last call or answer is incomplete.
func (r *run) classify(resp *Response, msg Message, calls []ToolCall) turn {
	switch {
	case resp.FinishReason == FinishRepetition || Repetitive(msg.Content) || Repetitive(msg.Reasoning):
		return turnRepeated
	case resp.FinishReason == FinishLength:
		if r.protocol != ProtocolText && len(calls) > 0 && allObjects(calls) {
			return turnOK
		}
		return turnCut
	case resp.FinishReason == FinishContentFilter:
		return turnFiltered
	case resp.Refusal != "" && len(calls) == 0:
		return turnRefused
	case strings.TrimSpace(msg.Content) == "" && len(calls) == 0:
		return turnEmpty
	}
	return turnOK
}

func allObjects(calls []ToolCall) bool {
	for _, tc := range calls {
		if _, ok := repairArgs(tc.Arguments); !ok {
			return false
		}
	}
	return true
}

// retryTurn answers a reply the loop cannot act on: the reply goes into
// the history as text only (never an empty message, never its incomplete
// calls), then a user message says what went wrong and what to do; a
// bounded run of them ends the run.
func (r *run) retryTurn(t turn, resp *Response, msg Message) (StopReason, error) {
	kept := Message{Role: Assistant, Content: strings.TrimSpace(msg.Content), Reasoning: msg.Reasoning}
	limit := func(n, def int) int {
		if n <= 0 {
			return def
		}
		return n
	}
	var note string
	if t != turnRepeated {
		r.repeats = 0
	}
	switch t {
	case turnRepeated:
		// The loop's text is never replayed: it would fill the context
		// and invite the same loop.
		r.repeats++
		kept = Message{Role: Assistant, Content: PlaceholderRepeated}
		note = "Your reply kept repeating the same text, so it was cut and nothing in it was run. " +
			"Do not repeat yourself: " + r.actionHint() + " once, or give your final answer."
		r.detail = fmt.Sprintf("the model repeated itself (the same text over and over) %d times in a row", r.repeats)
		if r.repeats >= maxRepeats {
			r.state.Messages = append(r.state.Messages, kept)
			return StopRepetition, nil
		}
	case turnCut:
		r.cuts++
		r.noAction = 0
		if kept.Content == "" {
			kept.Content = PlaceholderCut
		}
		note = "Your reply was cut off at the output limit before it was complete, so nothing in it was run. " +
			"Answer shorter: one action per reply, no long explanations; split a large edit or text into several smaller ones."
		r.detail = fmt.Sprintf("the model's reply was cut off at the output limit (finish_reason %q) %d times in a row; "+
			"raise the role's max_tokens or ask for less per reply", resp.FinishReason, r.cuts)
		if r.cuts >= limit(r.a.Loop.MaxCutoffs, 3) {
			r.state.Messages = append(r.state.Messages, kept)
			return StopOutputLimit, nil
		}
	default:
		r.noAction++
		r.cuts = 0
		switch t {
		case turnFiltered:
			r.detail = "the endpoint's content filter stopped the model's reply (finish_reason \"content_filter\")"
			note = "Your reply was stopped by the endpoint's content filter."
		case turnRefused:
			r.detail = "the model refused: " + truncate(resp.Refusal, 300)
			note = "You declined to answer."
			if kept.Content == "" {
				kept.Content = resp.Refusal
			}
		default:
			r.detail = "the model's reply was empty (no text and no tool call)"
			note = "Your reply was empty."
		}
		if kept.Content == "" {
			kept.Content = PlaceholderEmpty
		}
		r.detail += fmt.Sprintf(", %d times in a row", r.noAction)
		if r.noAction >= limit(r.a.Loop.MaxNoAction, 3) {
			r.state.Messages = append(r.state.Messages, kept)
			return StopNoAction, nil
		}
		note += " Every reply must either " + r.actionHint() + " or give your final answer."
	}
	r.state.Messages = append(r.state.Messages, kept, Message{Role: User, Content: note})
	return "", nil
}

// actionHint says how to act in this run's protocol.
func (r *run) actionHint() string {
	if r.protocol == ProtocolText {
		return "contain exactly one action line (name=>argument)"
	}
	return "call one of the tools"
}

// repairCalls makes every call's arguments one JSON object for the
// history: repaired where the object is only wrapped, else {} with the
// reason kept for the call's error result (exec), so a bad call never
// poisons later requests.
func (r *run) repairCalls(calls []ToolCall) []ToolCall {
	// Per step: servers reuse ids across turns (call_0 every time).
	r.badArgs = nil
	out := make([]ToolCall, len(calls))
	for i, tc := range calls {
		if fixed, ok := repairArgs(tc.Arguments); ok {
			tc.Arguments = fixed
		} else {
			if r.badArgs == nil {
				r.badArgs = map[string]string{}
			}
			r.badArgs[tc.ID] = fmt.Sprintf("the arguments of %s are not one valid JSON object, so the call was not run "+
				"(they are shown as {} in this conversation). You wrote: %s\nSend the call again with valid JSON arguments.",
				tc.Name, truncate(tc.Arguments, 200))
			tc.Arguments = "{}"
		}
		out[i] = tc
	}
	return out
}

// formatErrors counts a turn whose every call was malformed (unknown tool
// or unreadable arguments) as a reply without an action; a bounded run of
// them ends the run with StopNoAction.
func (r *run) formatErrors(calls []ToolCall) StopReason {
	r.cuts = 0
	malformed := 0
	for _, tc := range calls {
		_, known := r.tools[tc.Name]
		_, bad := r.badArgs[tc.ID]
		if !known || bad {
			malformed++
		}
	}
	if malformed < len(calls) {
		r.noAction = 0
		return ""
	}
	r.noAction++
	r.detail = fmt.Sprintf("the model's tool calls were malformed (unknown tool or invalid arguments), %d times in a row", r.noAction)
	limit := r.a.Loop.MaxNoAction
	if limit <= 0 {
		limit = 3
	}
	if r.noAction >= limit {
		return StopNoAction
	}
	return ""
}
