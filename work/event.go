package work

import "github.com/issuesmith/issuesmith/llm"

// EventKind says what an Event reports (not to be confused with
// workflow.EventKind, the kinds of what happens on GitHub).
type EventKind string

// Event kinds: what the agents and the long jobs report while they run.
const (
	// EventStep is one step of an agent's model loop (the explorer's):
	// Step, Action, Usage, Total and PromptTokens.
	EventStep EventKind = "step"
	// EventCompress is a compression of the conversation (Before →
	// PromptTokens, Detail what the record kept) or one of its model calls
	// (Before 0, Usage what it cost).
	EventCompress EventKind = "compress"
	// EventObserver is an observer call: Detail is what it said.
	EventObserver EventKind = "observer"
	// EventItem is a change of one item's state: a plan item's while the
	// coder works (Index, Path, State ItemWorking when it starts, then its
	// outcome, Attempt and Reason), or a batch's instance's when it ends
	// (ID, State its status, Reason, Detail its figures: bot replay).
	EventItem EventKind = "item"
	// EventStage is a long job moving on: Stage names the stage it starts
	// (agents.Local's "indexing", "planning", "coding"; for a batch's
	// instance ID, replay's "clone", "tests", "solve"), or Detail says in
	// a sentence what just happened (bot try's story).
	EventStage EventKind = "stage"
	// EventCount is a long job's count: Count of Of done in Stage (the
	// code index's "parse" and "summarize"; replay's "instances" at its
	// start, those already in its results file).
	EventCount EventKind = "count"
)

// Event is one progress report of an agent or a long job. Which fields are
// set depends on Kind (see the kinds); the zero value of the others means
// nothing.
type Event struct {
	Kind EventKind `json:"kind"`
	// Agent is the role reporting (llm.RoleExplorer, llm.RoleCoder,
	// llm.RoleSummarizer for the code index); empty for a job that is no
	// one agent's (agents.Local's stages, bot try).
	Agent llm.Role `json:"agent,omitempty"`
	Step  int      `json:"step"`
	// Action is the step's tool calls as "name arg" ("read_file src/a.go").
	Action string `json:"action,omitempty"`
	// Usage is what this step or call cost; Total is the run so far.
	Usage llm.Usage `json:"usage"`
	Total llm.Usage `json:"total"`
	// PromptTokens is the size of the conversation after the event;
	// Before, of a compression, its size before.
	PromptTokens int `json:"prompt_tokens,omitempty"`
	Before       int `json:"before,omitempty"`
	// Detail says what a compression kept or what the observer said.
	Detail string `json:"detail,omitempty"`

	// Index is an EventItem's 0-based position in the plan (0 for a
	// revision); Path its repository-relative slash path.
	Index int    `json:"index,omitempty"`
	Path  string `json:"path,omitempty"`
	// State is the item's new status (ItemWorking, ItemDone, ItemFailed,
	// ItemBlocked, ItemSkipped).
	State string `json:"state,omitempty"`
	// Attempt is the number of model answers with edits the item has used:
	// 0 when it starts.
	Attempt int `json:"attempt,omitempty"`
	// Reason says why an item failed, was blocked or skipped.
	Reason string `json:"reason,omitempty"`

	// ID names the instance of a batch (a replay instance) the event is
	// about.
	ID string `json:"id,omitempty"`

	// Stage names the stage an EventStage starts, or what an EventCount
	// counts; Count of Of are done.
	Stage string `json:"stage,omitempty"`
	Count int    `json:"count,omitempty"`
	Of    int    `json:"of,omitempty"`
}

// Progress hears the Events of an agent or a long job. Each package says
// from which goroutines it is called; it must return quickly. A nil
// Progress hears nothing.
type Progress func(Event)

// Emit tells p ev; a nil p does nothing.
func (p Progress) Emit(ev Event) {
	if p != nil {
		p(ev)
	}
}

// Then is p followed by next: each event goes to p, then to next; either
// may be nil.
func (p Progress) Then(next Progress) Progress {
	switch {
	case p == nil:
		return next
	case next == nil:
		return p
	}
	return func(ev Event) {
		p(ev)
		next(ev)
	}
}
