package llm

import (
	"context"
	"encoding/json"
	"time"
)

// Role names an agent role. Each role has its own model, budgets and usage
// line in a run's ledger.
type Role string

// The roles of the product.
const (
	RoleExplorer   Role = "explorer"
	RoleObserver   Role = "observer"
	RolePlanner    Role = "planner"
	RoleCoder      Role = "coder"
	RoleSummarizer Role = "summarizer"
	// RoleApply rewrites one located region of a file from an edit the
	// engine refused (the coder's apply-model fallback); without a model
	// of its own it uses the coder's.
	RoleApply Role = "apply"
)

// Message roles, as the OpenAI chat API spells them.
const (
	System    = "system"
	User      = "user"
	Assistant = "assistant"
	ToolRole  = "tool"
)

// Message is one chat message. It mirrors the OpenAI wire shape but is ours, so
// agents never import go-openai.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content,omitempty"`
	// Reasoning holds reasoning_content from models that stream it apart
	// from the answer (and <think> text moved out of the content). The
	// Client sends it back only to models that need it (DeepSeek's and
	// Kimi's thinking modes with tool calls): configured in
	// Config.SendReasoning or learnt from the provider's own 400.
	Reasoning  string     `json:"reasoning,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// ToolCall is one function call requested by the model. Arguments is the raw
// JSON text the model produced; it may be invalid.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// Extra is the provider's own data on the call that must come back
	// with it in the history (Gemini's extra_content with its
	// thought_signature); the Client echoes it verbatim.
	Extra json.RawMessage `json:"extra,omitempty"`
}

// ToolSpec describes a tool to the model. Parameters is a JSON schema object.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one chat completion request.
type Request struct {
	// Role selects the model and budgets configured for the role and the
	// usage line the call is recorded under.
	Role     Role
	Messages []Message
	Tools    []ToolSpec
	// JSON asks for a single JSON object as the reply (response_format
	// json_object where the server supports it).
	JSON bool
	// MaxTokens caps the completion; 0 means the role's configured value.
	MaxTokens int
}

// Response is the model's answer to one Request.
type Response struct {
	Message      Message
	FinishReason string
	// Refusal is the model's structured refusal (OpenAI's refusal field),
	// given instead of an answer.
	Refusal string
	Usage   Usage
	// UsageEstimated is true when the server reported no usage and Usage
	// was counted locally with CountTokens.
	UsageEstimated bool
	// Model is the model that answered (from the role's configuration).
	Model string
	// Cost is Usage priced with the model's configured Price (0 without).
	Cost float64
	// Window is the model's context window as its server stated it
	// (Client.ContextWindow; zero when it did not say).
	Window Window
	// total is total_tokens from a server that reported nothing else.
	total int
}

// Usage counts tokens of one call or a sum of calls.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	CachedTokens     int `json:"cached_tokens"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + v.PromptTokens,
		CompletionTokens: u.CompletionTokens + v.CompletionTokens,
		CachedTokens:     u.CachedTokens + v.CachedTokens,
	}
}

// Total is prompt plus completion tokens.
func (u Usage) Total() int { return u.PromptTokens + u.CompletionTokens }

// Model is the port every agent talks to. Implementations must be safe for
// concurrent use, retry transient failures themselves and honour ctx.
type Model interface {
	Chat(ctx context.Context, req Request) (*Response, error)
}

// Tool is one action an agent can take. Call returns a ToolResult for anything
// the model can correct (bad arguments, no match, path outside the repo): the
// loop sends it back as the tool's result. A non-nil error is our own failure
// and ends the run.
type Tool interface {
	Spec() ToolSpec
	Call(ctx context.Context, args json.RawMessage) (ToolResult, error)
}

// ToolResult is what the model sees after a tool call.
type ToolResult struct {
	Content string
	// IsError marks a result the model should correct (it is rendered with
	// an error prefix).
	IsError bool
	// Stop ends the run as finished after this step (a terminal tool such
	// as the explorer's submit_spec).
	Stop bool
}

// Budget bounds one agent run. A zero field means no limit of that kind.
type Budget struct {
	MaxSteps  int
	MaxTokens int           // prompt + completion tokens over the run
	MaxCost   float64       // estimated cost in the configured currency
	MaxWall   time.Duration // wall time of the run
}

// StopReason says why an agent run ended.
type StopReason string

// Stop reasons. Every budget stop ends gracefully with what was gathered.
const (
	StopFinished    StopReason = "finished"
	StopStepLimit   StopReason = "step_limit"
	StopTokenBudget StopReason = "token_budget"
	StopCostBudget  StopReason = "cost_budget"
	StopWallTime    StopReason = "wall_time"
	StopLoop        StopReason = "loop_detected"
	StopCancelled   StopReason = "cancelled"
	StopModelError  StopReason = "model_error"
	// StopOutputLimit: the model's replies kept being cut at the output
	// limit (finish_reason "length") after the loop told it so.
	StopOutputLimit StopReason = "output_limit"
	// StopNoAction: a bounded run of replies that neither called a tool nor
	// were a usable answer (empty, malformed or refused replies).
	StopNoAction StopReason = "no_action"
	// StopContextWindow: the prompt did not fit the model's context window
	// (the endpoint refused it, or reported usage shows it was truncated).
	StopContextWindow StopReason = "context_window"
	// StopRepetition: the model's replies repeated the same text over and
	// over (a repetition loop, ErrRepetition).
	StopRepetition StopReason = "repetition"
)

// Finish reasons as OpenAI-compatible servers report them in
// Response.FinishReason.
const (
	FinishStop          = "stop"
	FinishLength        = "length"
	FinishToolCalls     = "tool_calls"
	FinishContentFilter = "content_filter"
	// FinishRepetition is the client's own: it cut a streamed reply that
	// kept repeating the same text (Repetitive).
	FinishRepetition = "repetition"
)

// WithNote adds a note for the model after the newest message without
// breaking the turn order strict providers enforce: a user message right
// after tool results, or after another user message, is refused by some
// (Mistral), so the note joins the last message when that is a tool result
// or a user message, and is a user message only after an assistant one.
func WithNote(msgs []Message, note string) []Message {
	if n := len(msgs); n > 0 && (msgs[n-1].Role == ToolRole || msgs[n-1].Role == User) {
		out := append([]Message(nil), msgs...)
		out[n-1].Content += "\n\n" + note
		return out
	}
	return append(msgs, Message{Role: User, Content: note})
}
