package preagent

import (
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
)

// Defaults sized for a model with a 32k-token context: the conversation is
// compressed past DefaultCompressAt prompt tokens and no request the explorer
// makes (its own turns, compression and observer calls) goes past
// DefaultMaxPromptTokens, which leaves room for tool schemas and the reply.
const (
	DefaultCompressAt      = 16000
	DefaultMaxPromptTokens = 24000
	DefaultMaxResultTokens = 3500
	DefaultRecordTokens    = 3000
	DefaultObserveEvery    = 4
	DefaultMaxSteps        = 40
	DefaultMaxWall         = 15 * time.Minute
	DefaultReadmeLines     = 40
	DefaultSearchHits      = 10
)

// Options tune one Explorer. Zero fields take the defaults above.
type Options struct {
	// Budget bounds the explorer's own loop (steps, tokens, cost, wall
	// time). Zero MaxSteps and MaxWall take the defaults.
	Budget llm.Budget
	// Protocol is the action protocol (empty: what the model prefers).
	Protocol llm.Protocol
	// CompressAt is the prompt size in tokens past which the explored
	// history is rewritten into a compact record. Negative disables
	// compression (for comparison; the prompt then grows without bound).
	CompressAt int
	// MaxPromptTokens is the ceiling every request is kept under: the
	// newest raw tool results are cut to fit it.
	MaxPromptTokens int
	// MaxResultTokens caps one tool result.
	MaxResultTokens int
	// RecordTokens caps the compact record; the oldest files judged not
	// relevant are folded into a list of paths, then counted, past it.
	RecordTokens int
	// NoModelVerdicts makes compression use only the deterministic
	// summaries and verdicts, without asking the model.
	NoModelVerdicts bool
	// NoObserver switches the observer off (per repository setting).
	NoObserver bool
	// NoNamedFiles leaves out of the first message the preview of the
	// files the issue names (paths, path:line, stack frames, backticked
	// symbols), per repository setting.
	NoNamedFiles bool
	// ObserveEvery is how many explorer steps pass between observer calls.
	ObserveEvery int
	// ObserverBudget bounds the observer over the run: MaxSteps is the
	// number of calls, MaxTokens their prompt plus completion tokens.
	// Past either, the explorer goes on unobserved. Zero fields: no limit.
	ObserverBudget llm.Budget
	// Guidance is the repository guidance (see LoadGuidance). When empty
	// the explorer loads it from the workspace itself; set NoGuidance to
	// give none.
	Guidance   string
	NoGuidance bool
	// Progress, when set, is told every step, compression and observer
	// call (work.EventStep, EventCompress, EventObserver, Agent
	// llm.RoleExplorer), from the goroutine running Explore.
	Progress work.Progress
	// WrapTool, when set, wraps each tool the explorer offers the model
	// (the workflow records the calls in the run's session).
	WrapTool func(llm.Tool) llm.Tool
}

func (o Options) withDefaults() Options {
	if o.CompressAt == 0 {
		o.CompressAt = DefaultCompressAt
	}
	if o.MaxPromptTokens <= 0 {
		o.MaxPromptTokens = DefaultMaxPromptTokens
	}
	if o.MaxResultTokens <= 0 {
		o.MaxResultTokens = DefaultMaxResultTokens
	}
	if o.RecordTokens <= 0 {
		o.RecordTokens = DefaultRecordTokens
	}
	if o.ObserveEvery <= 0 {
		o.ObserveEvery = DefaultObserveEvery
	}
	if o.Budget.MaxSteps <= 0 {
		o.Budget.MaxSteps = DefaultMaxSteps
	}
	if o.Budget.MaxWall <= 0 {
		o.Budget.MaxWall = DefaultMaxWall
	}
	return o
}

// Result is the end of one exploration.
type Result struct {
	Spec *work.Spec `json:"spec"`
	// Reason is why the explorer's loop ended; anything but
	// llm.StopFinished with a submitted spec makes Spec partial.
	Reason llm.StopReason `json:"reason"`
	Events []work.Event   `json:"events"`
	Steps  int            `json:"steps"`
	// Usage sums the explorer, compression and observer calls.
	Usage        llm.Usage `json:"usage"`
	Compressions int       `json:"compressions"`
	Suggestions  []string  `json:"suggestions,omitempty"`
}
