package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
)

// Rule is one history rule a real provider enforces: it returns the
// provider's own 400 message when req breaks it, else "". A Server in
// strict mode (the default) checks every chat request against its rules
// before matching the script; a request that breaks one fails the test and
// is answered 400 with that message, as the provider would.
type Rule func(req Request) string

// StrictRules are the rules a strict server checks by default: the ones
// OpenAI-compatible servers apply to any model. WithAlternation adds the
// stricter alternation of some chat templates.
func StrictRules() []Rule {
	return []Rule{ValidToolArguments, NoUserAfterTool, NoEmptyAssistant, ToolCallsAnswered}
}

// Lenient turns strict history checking off, for a test that sends a
// broken history on purpose (say why at the call site).
func Lenient() Option { return func(s *Server) { s.rules = nil } }

// WithRules replaces the strict rules.
func WithRules(rules ...Rule) Option { return func(s *Server) { s.rules = rules } }

// WithAlternation adds AlternatingUsers to the strict rules: the server
// also refuses two user messages in a row, as Mistral's and Gemma's chat
// templates do.
func WithAlternation() Option {
	return func(s *Server) { s.rules = append(s.rules, AlternatingUsers) }
}

// Rejected returns the strict-mode messages the server answered with.
func (s *Server) Rejected() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.rejected...)
}

// check applies the rules; the caller holds s.mu.
func (s *Server) check(req Request) string {
	for _, r := range s.rules {
		if why := r(req); why != "" {
			return why
		}
	}
	return ""
}

// ValidToolArguments: vLLM and llama-server parse the arguments of every
// tool call in the history and answer 400 when one is not a JSON object, so
// one bad call poisons every later request of the conversation.
// Reports: https://github.com/vllm-project/vllm/issues/43995,
// https://github.com/OpenHands/OpenHands/issues/13949 (llama-server's
// "Failed to parse tool call arguments as JSON").
func ValidToolArguments(req Request) string {
	for i, m := range req.Messages {
		for _, tc := range m.ToolCalls {
			args := strings.TrimSpace(tc.Arguments)
			if args == "" {
				continue // servers read an empty string as {}
			}
			var obj map[string]json.RawMessage
			if err := json.Unmarshal([]byte(args), &obj); err != nil {
				return fmt.Sprintf("Failed to parse tool call arguments as JSON: messages[%d] tool call %s: %v", i, tc.ID, err)
			}
		}
	}
	return ""
}

// NoUserAfterTool: Mistral's API and Devstral served by vLLM refuse a user
// message right after a tool message.
// Reports: https://github.com/zed-industries/zed/issues/37021,
// https://github.com/NousResearch/hermes-agent/issues/20154.
func NoUserAfterTool(req Request) string {
	for i := 1; i < len(req.Messages); i++ {
		if req.Messages[i-1].Role == llm.ToolRole && req.Messages[i].Role == llm.User {
			return "Unexpected role 'user' after role 'tool'"
		}
	}
	return ""
}

// NoEmptyAssistant: an assistant message with neither content nor tool
// calls is refused by vLLM ("Invalid assistant message") and by
// Anthropic's compatibility layer.
// Reports: https://github.com/vllm-project/vllm/issues/21089,
// https://github.com/anthropics/claude-code/issues/3196.
func NoEmptyAssistant(req Request) string {
	for i, m := range req.Messages {
		if m.Role == llm.Assistant && strings.TrimSpace(m.Content) == "" && len(m.ToolCalls) == 0 {
			return fmt.Sprintf("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
		}
	}
	return ""
}

// ToolCallsAnswered: OpenAI (and DeepSeek, Qwen's DashScope) require one
// tool message per tool call id right after the assistant message, and no
// tool message for an id that was never called.
// Reports: https://github.com/agno-agi/agno/issues/3105,
// https://github.com/langgenius/dify/issues/32222.
func ToolCallsAnswered(req Request) string {
	pending := map[string]bool{}
	var order []string
	unanswered := func() string {
		var ids []string
		for _, id := range order {
			if pending[id] {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return ""
		}
		return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
			"The following tool_call_ids did not have response messages: " + strings.Join(ids, ", ")
	}
	for _, m := range req.Messages {
		switch m.Role {
		case llm.ToolRole:
			if !pending[m.ToolCallID] {
				return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
			}
			pending[m.ToolCallID] = false
			continue
		}
		if why := unanswered(); why != "" {
			return why
		}
		pending, order = map[string]bool{}, nil
		for _, tc := range m.ToolCalls {
			pending[tc.ID] = true
			order = append(order, tc.ID)
		}
	}
	return unanswered()
}

// AlternatingUsers: chat templates of Mistral, Gemma and others (served by
// vLLM) refuse two user messages in a row.
// Reports: https://github.com/vllm-project/vllm/issues/6862,
// https://github.com/charmbracelet/crush/issues/279.
func AlternatingUsers(req Request) string {
	for i := 1; i < len(req.Messages); i++ {
		if req.Messages[i-1].Role == llm.User && req.Messages[i].Role == llm.User {
			return "After the optional system message, conversation roles must alternate user/assistant/user/assistant/..."
		}
	}
	return ""
}
