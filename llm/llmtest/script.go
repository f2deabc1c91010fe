package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/issuesmith/issuesmith/internal/tb"
	"github.com/issuesmith/issuesmith/llm"
)

// Script is the ordered conversation a Server plays: each request must
// match the next Exchange.
type Script []Exchange

// Exchange is one expected request and what to answer. Faults are served
// first, one per matching request (the client retries), then Reply.
type Exchange struct {
	// Name labels the exchange in failure messages.
	Name string `yaml:"name,omitempty"`
	// AnyOrder puts the exchange in a group with its AnyOrder neighbours:
	// a request is matched against every unplayed exchange of the group,
	// for callers that send requests concurrently (summary workers).
	AnyOrder bool    `yaml:"any_order,omitempty"`
	Expect   Expect  `yaml:"expect,omitempty"`
	Faults   []Fault `yaml:"faults,omitempty"`
	Reply    Answer  `yaml:"reply"`
	// Repeat plays Reply this many times in a row (0 or 1: once), for a
	// model that keeps making the same mistake. Faults come before the
	// first play only.
	Repeat int `yaml:"repeat,omitempty"`
	// Forever, on the script's last exchange, answers every later
	// matching request too once it was played: a model that never stops
	// making the same mistake, however often the bot asks again. It may
	// also stay unplayed (after its faults ended the run).
	Forever bool `yaml:"forever,omitempty"`
}

// Expect is what a request must look like. Empty fields match anything;
// text fields match as substrings.
type Expect struct {
	// Role is the agent role sent in the llm.RoleHeader header.
	Role  string `yaml:"role,omitempty"`
	Model string `yaml:"model,omitempty"`
	// LastRole is the role of the request's last message (user, tool, ...).
	LastRole string `yaml:"last_role,omitempty"`
	// Last must occur in the content of the last message.
	Last string `yaml:"last,omitempty"`
	// ToolResult must occur in a message after the last assistant message
	// (tool results, or the text protocol's result messages).
	ToolResult string `yaml:"tool_result,omitempty"`
	// System must occur in one of the system messages.
	System string `yaml:"system,omitempty"`
	// Tools must all be offered in the request's tool list.
	Tools []string `yaml:"tools,omitempty"`
	// JSON, when set, must equal whether response_format json_object was asked.
	JSON *bool `yaml:"json,omitempty"`
	// Probe matches the start-up probe's requests (llm.ProbeHeader).
	// Without an exchange expecting it, the server answers a probe itself
	// with a call of the first offered tool, outside the script.
	Probe bool `yaml:"probe,omitempty"`
}

// Fault is a failure injected instead of a reply.
type Fault struct {
	// Status answers with this HTTP status and an OpenAI error body.
	Status int `yaml:"status,omitempty"`
	// RetryAfter is sent as the Retry-After header with Status.
	RetryAfter string `yaml:"retry_after,omitempty"`
	// Message is the error message sent with Status.
	Message string `yaml:"message,omitempty"`
	// Hang waits this long (or until the client gives up) and then
	// answers 504: a slow server, for timeout tests.
	Hang time.Duration `yaml:"hang,omitempty"`
	// Malformed sends a reply that is not valid JSON.
	Malformed bool `yaml:"malformed,omitempty"`
	// Drop starts a stream and then cuts the connection.
	Drop bool `yaml:"drop,omitempty"`
	// Cut starts a stream and ends it cleanly before any answer or [DONE].
	Cut bool `yaml:"cut,omitempty"`
	// StreamError starts a stream and then sends an error event with this
	// type (for example overloaded_error), as some servers do after 200.
	StreamError string `yaml:"stream_error,omitempty"`
	// Unless serves the fault to every request whose body lacks this
	// text (it is not used up); the first request containing it skips the
	// fault. It plays a provider rule such as DeepSeek's
	// "reasoning_content must be passed back" (unless: reasoning_content)
	// or Gemini's thought_signature.
	Unless string `yaml:"unless,omitempty"`
	// RetryAfterMS is sent as the retry-after-ms header with Status, as
	// OpenAI and Azure do.
	RetryAfterMS string `yaml:"retry_after_ms,omitempty"`
	// ResetRequests and ResetTokens are sent as OpenAI's
	// x-ratelimit-reset-requests and x-ratelimit-reset-tokens ("1s",
	// "6m0s", "20ms").
	ResetRequests string `yaml:"reset_requests,omitempty"`
	ResetTokens   string `yaml:"reset_tokens,omitempty"`
	// Code is the error code sent with Status (for example
	// insufficient_quota, context_length_exceeded).
	Code string `yaml:"code,omitempty"`
}

// Answer is a scripted model reply.
type Answer struct {
	Content   string `yaml:"content,omitempty"`
	Reasoning string `yaml:"reasoning,omitempty"`
	// ReasoningField names the wire field for Reasoning (default
	// reasoning_content, as DeepSeek; "reasoning" as OpenRouter, Ollama).
	ReasoningField string     `yaml:"reasoning_field,omitempty"`
	ToolCalls      []CallSpec `yaml:"tool_calls,omitempty"`
	// Usage is reported in the final chunk (when the client asked with
	// stream_options.include_usage) or in the plain body.
	Usage *Usage `yaml:"usage,omitempty"`
	// Finish is the finish_reason (default: stop, or tool_calls).
	Finish string `yaml:"finish,omitempty"`
	// Chunk splits content, reasoning and arguments into pieces of this
	// many bytes (0: one piece each).
	Chunk int `yaml:"chunk,omitempty"`
	// NoIndex leaves the index out of tool-call deltas, as some servers do.
	NoIndex bool `yaml:"no_index,omitempty"`
	// RepeatName repeats the tool name in every argument delta.
	RepeatName bool `yaml:"repeat_name,omitempty"`
	// NoIDs leaves the id out of tool calls, as some servers do.
	NoIDs bool `yaml:"no_ids,omitempty"`
	// WholeCalls sends every tool call complete in a single delta (Chunk
	// does not split them), as Gemini's compatibility layer does.
	WholeCalls bool `yaml:"whole_calls,omitempty"`
	// NoUsage never reports usage, as some servers do.
	NoUsage bool `yaml:"no_usage,omitempty"`
	// Plain answers with a plain JSON body even to a streaming request.
	Plain bool `yaml:"plain,omitempty"`
	// Delay pauses before each stream chunk.
	Delay time.Duration `yaml:"delay,omitempty"`
	// Refusal is sent as the message's refusal field (OpenAI's structured
	// refusal), usually with empty content.
	Refusal string `yaml:"refusal,omitempty"`
	// Extra holds raw fields added to the message (plain) or to the first
	// delta (stream) as they are, for provider fields the client must cope
	// with or echo back.
	Extra map[string]any `yaml:"extra,omitempty"`
	// SameIndex sends every tool call with index 0, each with its own id,
	// as Ollama does for parallel calls.
	SameIndex bool `yaml:"same_index,omitempty"`
	// ObjectArgs sends each call's arguments as a JSON object instead of a
	// string holding one (TGI, some llama-server builds); streamed, each
	// call comes whole in one delta.
	ObjectArgs bool `yaml:"object_args,omitempty"`
}

// CallSpec is one scripted tool call. Args is a YAML/JSON object, or a
// string sent verbatim (which may be invalid JSON on purpose).
type CallSpec struct {
	ID   string `yaml:"id,omitempty"`
	Name string `yaml:"name"`
	Args any    `yaml:"args,omitempty"`
	// Extra holds raw fields added to the tool call object, such as
	// Gemini's extra_content.google.thought_signature.
	Extra map[string]any `yaml:"extra,omitempty"`
}

// Usage is the token usage a reply reports.
type Usage struct {
	Prompt     int `yaml:"prompt"`
	Completion int `yaml:"completion"`
	Cached     int `yaml:"cached,omitempty"`
	// DeepSeekCache reports Cached as DeepSeek does
	// (prompt_cache_hit_tokens) instead of prompt_tokens_details.
	DeepSeekCache bool `yaml:"deepseek_cache,omitempty"`
	// Reasoning is reported as completion_tokens_details.reasoning_tokens.
	Reasoning int `yaml:"reasoning,omitempty"`
	// TotalOnly reports total_tokens alone (prompt plus completion), as
	// some proxies do.
	TotalOnly bool `yaml:"total_only,omitempty"`
}

func (c CallSpec) arguments() string {
	switch a := c.Args.(type) {
	case nil:
		return "{}"
	case string:
		return a
	default:
		b, err := json.Marshal(a)
		if err != nil {
			return fmt.Sprintf("%v", a)
		}
		return string(b)
	}
}

// Reply is an exchange answering with text.
func Reply(content string) Exchange { return Exchange{Reply: Answer{Content: content}} }

// Call is an exchange answering with one tool call; args is sent verbatim.
func Call(name, args string) Exchange {
	return Exchange{Reply: Answer{ToolCalls: []CallSpec{{Name: name, Args: args}}}}
}

// Calls is an exchange answering with several tool calls in one turn.
func Calls(calls ...CallSpec) Exchange { return Exchange{Reply: Answer{ToolCalls: calls}} }

// When sets the expectation of e.
func (e Exchange) When(x Expect) Exchange { e.Expect = x; return e }

// WithUsage sets the reported usage.
func (e Exchange) WithUsage(prompt, completion, cached int) Exchange {
	e.Reply.Usage = &Usage{Prompt: prompt, Completion: completion, Cached: cached}
	return e
}

// WithReasoning adds reasoning_content to the reply.
func (e Exchange) WithReasoning(s string) Exchange { e.Reply.Reasoning = s; return e }

// Times plays the reply n times in a row.
func (e Exchange) Times(n int) Exchange { e.Repeat = n; return e }

// Always answers every matching request from here on (Forever; the
// script's last exchange only).
func (e Exchange) Always() Exchange { e.Forever = true; return e }

// Finish sets the reply's finish_reason (length, content_filter, ...).
func (e Exchange) Finish(reason string) Exchange { e.Reply.Finish = reason; return e }

// Split streams the reply in pieces of n bytes.
func (e Exchange) Split(n int) Exchange { e.Reply.Chunk = n; return e }

// NoIndex leaves the index out of tool-call deltas.
func (e Exchange) NoIndex() Exchange { e.Reply.NoIndex = true; return e }

// Unordered marks exchanges as one AnyOrder group.
func Unordered(exs ...Exchange) []Exchange {
	out := make([]Exchange, len(exs))
	for i, e := range exs {
		e.AnyOrder = true
		out[i] = e
	}
	return out
}

// After serves faults before the reply, one per request.
func (e Exchange) After(faults ...Fault) Exchange { e.Faults = append(e.Faults, faults...); return e }

// Status is a fault answering with an HTTP status.
func Status(code int) Fault { return Fault{Status: code} }

// RateLimit is a 429 fault with a Retry-After header.
func RateLimit(retryAfter string) Fault { return Fault{Status: 429, RetryAfter: retryAfter} }

// LoadScript reads a YAML script file (strictly: unknown keys fail) and
// fails the test when it cannot.
func LoadScript(t tb.TB, path string) Script {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("llmtest: %v", err)
	}
	s, err := ParseScript(b)
	if err != nil {
		t.Fatalf("llmtest: %s: %v", path, err)
	}
	return s
}

// ParseScript decodes a YAML script: a list of exchanges.
func ParseScript(b []byte) (Script, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var s Script
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("parsing script: %w", err)
	}
	return s, nil
}

// match returns "" when req meets x, else what differs.
func match(x Expect, req Request) string {
	last := req.Last()
	switch {
	case x.Probe != (req.Probe != ""):
		return fmt.Sprintf("probe is %v, want %v", req.Probe != "", x.Probe)
	case x.Role != "" && req.Role != x.Role:
		return fmt.Sprintf("role is %q, want %q", req.Role, x.Role)
	case x.Model != "" && req.Model != x.Model:
		return fmt.Sprintf("model is %q, want %q", req.Model, x.Model)
	case x.LastRole != "" && last.Role != x.LastRole:
		return fmt.Sprintf("last message role is %q, want %q", last.Role, x.LastRole)
	case x.Last != "" && !strings.Contains(last.Content, x.Last):
		return fmt.Sprintf("last message does not contain %q", x.Last)
	case x.JSON != nil && req.JSON != *x.JSON:
		return fmt.Sprintf("json mode is %v, want %v", req.JSON, *x.JSON)
	}
	if x.ToolResult != "" && !containsResult(req.Messages, x.ToolResult) {
		return fmt.Sprintf("no result after the last assistant message contains %q", x.ToolResult)
	}
	if x.System != "" && !containsRole(req.Messages, llm.System, x.System) {
		return fmt.Sprintf("no system message contains %q", x.System)
	}
	for _, want := range x.Tools {
		if !contains(req.Tools, want) {
			return fmt.Sprintf("tool %q is not offered", want)
		}
	}
	return ""
}

func containsResult(ms []llm.Message, sub string) bool {
	for i := len(ms) - 1; i >= 0 && ms[i].Role != llm.Assistant; i-- {
		if strings.Contains(ms[i].Content, sub) {
			return true
		}
	}
	return false
}

func containsRole(ms []llm.Message, role, sub string) bool {
	for _, m := range ms {
		if m.Role == role && strings.Contains(m.Content, sub) {
			return true
		}
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
