package llm

import (
	"context"
	"errors"
)

// Protocol is how the loop exchanges actions with the model.
type Protocol string

// Protocols. ProtocolText is for models without tool calling: one action per
// reply in a plain form such as `open=>src/app.go`, parsed by the same loop.
const (
	ProtocolTools Protocol = "tools"
	ProtocolText  Protocol = "text"
)

// Agent is one agent role ready to run: the single loop implementation that
// serves every role (explorer, observer, planner, coder, summariser). An Agent
// holds no per-run state and may be reused; Run is safe to call concurrently
// when the Tools are.
type Agent struct {
	Role     Role
	Model    Model
	Tools    []Tool
	Budget   Budget
	Protocol Protocol // empty: the Model's choice (ProtocolChooser), else tools
	Hooks    Hooks
	// Loop tunes loop detection; the zero value uses the defaults.
	Loop LoopPolicy
	// Reminder, when set, ends every request: it is added to the last
	// message when that is a tool result or the task (never kept in the
	// history, so earlier requests stay a prefix of later ones). The
	// format rule belongs where a long context ends, not only in the
	// system prompt far above it. In the text protocol it is followed by
	// the action form.
	Reminder string
}

// Hooks let a role shape the loop without forking it.
type Hooks struct {
	// BeforeCall runs before every model call and may rewrite s.Messages
	// (the explorer's compression).
	BeforeCall func(ctx context.Context, s *State) error
	// AfterStep runs after a step's tool results were appended. It may
	// append messages (the observer's suggestion) or set s.Stop.
	AfterStep func(ctx context.Context, s *State) error
}

// State is the live state of one run, handed to hooks.
type State struct {
	Messages []Message
	Step     int // 1-based number of the step being taken
	Usage    Usage
	Steps    []StepRecord
	// Window is the model's context window as its server stated it in the
	// last reply (Response.Window; zero before the first or when unknown):
	// a hook sizes its compression to it.
	Window Window
	// Stop, set by a hook, ends the run with StopFinished after the
	// current step.
	Stop bool

	aside func(ctx context.Context, question string) (*Response, error)
}

// ErrNoAside is returned by State.Aside outside a running Agent.
var ErrNoAside = errors.New("llm: Aside is only available to a running agent's hooks")

// Aside asks the model question after the conversation so far, in the
// run's own request shape (the same tools, or the text protocol's prompt),
// so that a provider's prompt cache serves everything before the question:
// a side question costs the question and the turns since the last request.
// The reply is not added to the conversation and its usage is not the run's
// (the caller accounts for it). Only a running Agent's hooks may ask.
func (s *State) Aside(ctx context.Context, question string) (*Response, error) {
	if s == nil || s.aside == nil {
		return nil, ErrNoAside
	}
	return s.aside(ctx, question)
}

// StepRecord is what one step did: for logs, progress and --json output.
type StepRecord struct {
	Step    int        `json:"step"`
	Calls   []ToolCall `json:"calls,omitempty"`
	Errors  int        `json:"errors,omitempty"` // tool results flagged IsError
	Usage   Usage      `json:"usage"`
	Content string     `json:"content,omitempty"` // assistant text of the step, truncated
}

// Outcome is the end of a run. A budget stop is not an error: Reason says
// which budget, and Messages holds everything gathered so far.
type Outcome struct {
	Reason   StopReason
	Messages []Message
	Final    Message // the last assistant message
	Steps    []StepRecord
	Usage    Usage
	Cost     float64 // sum of the responses' Cost (configured prices)
	Err      error   // the model error behind StopModelError or StopContextWindow
	// Detail says in words why a run ended with StopOutputLimit,
	// StopNoAction or StopContextWindow (the last cut-off, refusal, content
	// filter or the endpoint's message), for a spec note or an item reason.
	Detail string
}
