package session

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/store"
)

// Kind names what an event records.
type Kind string

// The kinds of events.
const (
	KindModel       Kind = "model"
	KindTool        Kind = "tool"
	KindCompression Kind = "compression"
	KindObserver    Kind = "observer"
	KindEdit        Kind = "edit"
	KindCheck       Kind = "check"
	KindCommit      Kind = "commit"
	KindGitHub      Kind = "github"
	// KindCut marks where the session reached its bound and events were
	// dropped.
	KindCut Kind = "cut"
)

// Stages of a run, as the workflow names them; revise and CI rounds are
// numbered: Round(StageRevise, 2) is "revise 2".
const (
	StageExplore = "explore"
	StagePlan    = "plan"
	StageCode    = "code"
	StageRevise  = "revise"
	StageCI      = "ci"
)

// Round names round n of a repeated stage.
func Round(stage string, n int) string { return fmt.Sprintf("%s %d", stage, n) }

// Event is one recorded event with its payload (one of the pointers, by
// Kind).
type Event struct {
	Seq      int64         `json:"seq"`
	Stage    string        `json:"stage"`
	Step     string        `json:"step,omitempty"`
	Attempt  int           `json:"attempt,omitempty"`
	Kind     Kind          `json:"kind"`
	At       time.Time     `json:"at"`
	Duration time.Duration `json:"duration_ns,omitempty"`
	Shrunk   bool          `json:"shrunk,omitempty"`
	Payload
}

// Payload is the stored body of an event.
type Payload struct {
	Model       *ModelCall   `json:"model,omitempty"`
	Tool        *ToolCall    `json:"tool,omitempty"`
	Compression *Compression `json:"compression,omitempty"`
	Observer    *Note        `json:"observer,omitempty"`
	Edit        *Edit        `json:"edit,omitempty"`
	Check       *Check       `json:"check,omitempty"`
	Commit      *Commit      `json:"commit,omitempty"`
	GitHub      *GitHubWrite `json:"github,omitempty"`
	Cut         *Note        `json:"cut,omitempty"`
}

// ModelCall is one chat completion.
type ModelCall struct {
	Role             llm.Role `json:"role"`
	Model            string   `json:"model,omitempty"`
	PromptTokens     int      `json:"prompt_tokens"`
	CachedTokens     int      `json:"cached_tokens,omitempty"`
	CompletionTokens int      `json:"completion_tokens"`
	Estimated        bool     `json:"estimated,omitempty"`
	Cost             float64  `json:"cost,omitempty"`
	FinishReason     string   `json:"finish_reason,omitempty"`
	// System and Tools are the hashes of the request's system prompt and
	// tool schemas, stored once per session (Blobs).
	System string `json:"system,omitempty"`
	Tools  string `json:"tools,omitempty"`
	// Input holds the request's messages new since the previous call of
	// the same conversation (all of them after a compression rewrote the
	// history: Rewritten).
	Input     []Message      `json:"input,omitempty"`
	Rewritten bool           `json:"rewritten,omitempty"`
	Text      string         `json:"text,omitempty"`
	Reasoning string         `json:"reasoning,omitempty"`
	ToolCalls []llm.ToolCall `json:"tool_calls,omitempty"`
	Error     string         `json:"error,omitempty"`
}

// Message is one request message, clipped.
type Message struct {
	Role       string `json:"role"`
	Content    string `json:"content,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Bytes      int    `json:"bytes,omitempty"` // the content's size before clipping
}

// ToolCall is one tool call and an excerpt of its result.
type ToolCall struct {
	Name        string `json:"name"`
	Args        string `json:"args,omitempty"`
	Result      string `json:"result,omitempty"`
	ResultBytes int    `json:"result_bytes"` // the whole result's size
	IsError     bool   `json:"is_error,omitempty"`
	Error       string `json:"error,omitempty"` // our own failure, not the model's
}

// Compression is the explorer's history compressed into a record.
type Compression struct {
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
	Record       string `json:"record,omitempty"`
}

// Note is a free text: an observer's intervention, a cut marker.
type Note struct {
	Text string `json:"text"`
}

// Edit is one edit block: applied where, or refused why with the feedback
// sent back to the model.
type Edit struct {
	Path     string `json:"path"`
	Applied  bool   `json:"applied"`
	Where    string `json:"where,omitempty"`    // "lines 12-30", "new file", the matching rule
	Refused  string `json:"refused,omitempty"`  // why the engine refused it
	Feedback string `json:"feedback,omitempty"` // what the model was told
	Diff     string `json:"diff,omitempty"`     // unified diff of the change
}

// Check is a guard, gofmt, build, vet, check command, diagnostics or CI
// evidence: its result and the tail of its output.
type Check struct {
	Name    string `json:"name"`
	Command string `json:"command,omitempty"`
	OK      bool   `json:"ok"`
	Output  string `json:"output,omitempty"`
}

// Commit is a commit pushed.
type Commit struct {
	SHA     string `json:"sha"`
	Branch  string `json:"branch,omitempty"`
	Message string `json:"message,omitempty"`
	Files   int    `json:"files,omitempty"`
}

// GitHubWrite is one write on GitHub: a comment, a pull request, a review
// reply, a label.
type GitHubWrite struct {
	// Forge names the forge written to ("Gitea"; "" is GitHub, as every
	// write recorded before a second forge was).
	Forge  string `json:"forge,omitempty"`
	What   string `json:"what"`             // "comment", "pull request", "review reply", ...
	Target string `json:"target,omitempty"` // "#12", "comment 123"
	URL    string `json:"url,omitempty"`
	Text   string `json:"text,omitempty"` // an excerpt of what was written
}

// Decode turns a stored event back into an Event.
func Decode(ev *store.SessionEvent) (Event, error) {
	out := Event{Seq: ev.Seq, Stage: ev.Stage, Step: ev.Step, Attempt: ev.Attempt, Kind: Kind(ev.Kind),
		At: ev.At, Duration: ev.Duration, Shrunk: ev.Shrunk}
	if err := json.Unmarshal([]byte(ev.Body), &out.Payload); err != nil {
		return out, fmt.Errorf("decode session event %d: %w", ev.Seq, err)
	}
	return out, nil
}
