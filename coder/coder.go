package coder

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/internal/sandbox"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/lsp"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/work"
)

// Defaults applied by New to zero Options fields.
const (
	DefaultAttempts     = 4
	DefaultFixRounds    = 2
	DefaultCheckTimeout = 5 * time.Minute
	DefaultMaxFileLines = 400
	DefaultMaxReads     = 6
)

// Options configure a Coder. The workflow maps the per-repository config
// (.github/issuesmith.yml) onto it; zero fields take the defaults above.
type Options struct {
	// Attempts bounds the model's answers per plan item: each answer with
	// edits (text blocks or an edit_file call) is one attempt. After the
	// last failed attempt the item is marked failed and the run goes on.
	Attempts int
	// MaxReads bounds read_file calls per item (they are not attempts).
	MaxReads int
	// MaxTokens is the token budget (prompt + completion) of one
	// Implement or Revise run, over all items and fix rounds; 0 means no
	// limit. Items reached after it ran out fail with the reason.
	MaxTokens int
	// MaxWall bounds the model time of one run the same way; 0 means no
	// limit. Checks have their own CheckTimeout.
	MaxWall time.Duration
	// MaxCost bounds the estimated cost (llm.Response.Cost, from the
	// configured prices) of one run the same way; 0 means no limit.
	MaxCost float64
	// MaxSteps bounds the model calls of one plan item (or fix round, or
	// review comment); 0 means only Attempts and MaxReads bound them.
	MaxSteps int
	// MaxFileLines: a file longer than this is shown as its outline plus
	// the regions the plan touches; also the line budget of those regions.
	MaxFileLines int
	// Blocked are the globs of paths never written, whatever the model
	// asks; nil means DefaultBlocked. An empty, non-nil list blocks nothing.
	Blocked []string
	// Diagnostics asks the language servers (package lsp) about every file
	// an edit changed; the errors the edit added go back to the model with
	// the edit's result, and those left at the end are in
	// Result.Diagnostics. Missing or failing servers mean no diagnostics.
	Diagnostics bool
	// DiagnosticsWait bounds one question to a server (0: lsp's default).
	DiagnosticsWait time.Duration
	// NoLineEdits switches off line-range edits (<replace-lines>,
	// <remove-lines>, the edit_lines tool and read_file's window hash):
	// the prompt does not offer them and the engine refuses them.
	NoLineEdits bool
	// ApplyModel turns on the apply-model fallback: when a lazy sketch or
	// a SEARCH block is still refused on the item's last attempt, the model
	// of role llm.RoleApply rewrites only the region the engine located
	// (for a SEARCH block the nearest text at least 80% alike, else the
	// enclosing function; for a sketch the lines its anchors span) from it. The rewrite is kept only when nothing outside the region
	// changed, the syntax guard passes and no new diagnostic appears; its
	// diff is the block's result.
	ApplyModel bool
	// SkipGoChecks turns off go build / go vet of the touched packages
	// (they run only when a go toolchain is on PATH and go.mod exists).
	SkipGoChecks bool
	// SkipPythonChecks turns off the byte-compile and pyflakes checks of
	// the changed .py files (pychecks.go; sandboxed only).
	SkipPythonChecks bool
	// Setup is the repository's setup: Debian packages checked on the
	// host (a missing one stops the setup commands and CheckCommands, said
	// in a check result) and commands run in the sandbox before the first
	// checks when RunCommands is set, in a virtual environment kept with
	// the repository's caches when Sandbox.Egress allows a package index
	// (setup.go).
	Setup Setup
	// RunCommands allows running CheckCommands in the worktree. Off by
	// default: repository commands execute repository code.
	RunCommands bool
	// CheckCommands are shell commands (sh -c) run in the worktree after
	// the edits when RunCommands is set, e.g. "go test ./pkg/...".
	CheckCommands []string
	// Sandbox is the bubblewrap policy of go build/vet and check commands:
	// the worktree and the go caches are writable, the rest of the host
	// absent or read-only. Put the bot's key and config files in Hide;
	// Network shares the host network (off by default). Without
	// bubblewrap check commands are refused and go build/vet run outside
	// it with CGO_ENABLED=0.
	Sandbox sandbox.Policy
	// CheckTimeout bounds each check command and each go check.
	CheckTimeout time.Duration
	// FixRounds bounds the rounds in which failing checks are fed back to
	// the model; 0 means DefaultFixRounds, negative means none.
	FixRounds int
	// Progress, when set, is told each plan item's start (work.EventItem,
	// State ItemWorking) and outcome (done, failed, blocked, skipped), in
	// plan order: a blocked item reports only its outcome. Folded with
	// work.Apply into the plan's Pending list, the events give every
	// item's status, the list the workflow's progress comment shows. It is
	// called on the goroutine running Implement or Revise, which waits for
	// it, so it must return quickly.
	Progress work.Progress
	// WrapTool, when set, wraps each tool the coder offers the model (the
	// workflow records the calls in the run's session).
	WrapTool func(llm.Tool) llm.Tool
}

// Coder implements approved plans and review comments. It holds no per-run
// state; Implement and Revise may run concurrently on different workspaces.
type Coder struct {
	model   llm.Model
	opts    Options
	blocked Globs
	prompts *prompts
}

// New returns a Coder talking to model. It fails on a malformed blocked glob
// or a broken embedded prompt.
func New(model llm.Model, opts Options) (*Coder, error) {
	if model == nil {
		return nil, errors.New("new coder: model is nil")
	}
	if opts.Attempts <= 0 {
		opts.Attempts = DefaultAttempts
	}
	if opts.MaxReads <= 0 {
		opts.MaxReads = DefaultMaxReads
	}
	if opts.FixRounds == 0 {
		opts.FixRounds = DefaultFixRounds
	}
	if opts.CheckTimeout <= 0 {
		opts.CheckTimeout = DefaultCheckTimeout
	}
	if opts.MaxFileLines <= 0 {
		opts.MaxFileLines = DefaultMaxFileLines
	}
	g := Globs(opts.Blocked)
	if opts.Blocked == nil {
		g = Globs(DefaultBlocked)
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("new coder: %w", err)
	}
	p, err := loadPrompts()
	if err != nil {
		return nil, fmt.Errorf("new coder: %w", err)
	}
	return &Coder{model: model, opts: opts, blocked: g, prompts: p}, nil
}

// isBlocked reports whether p may never be written: the blocked globs, and
// always the repository's .git directory.
func (c *Coder) isBlocked(p string) bool {
	p = cleanRel(p)
	return p == ".git" || strings.HasPrefix(p, ".git/") || c.blocked.Match(p)
}

// Item outcomes (work's statuses, named here for the coder's callers).
const (
	ItemDone    = work.ItemDone    // every step's edits applied and validated
	ItemFailed  = work.ItemFailed  // attempts or budget exhausted; Reason says why
	ItemBlocked = work.ItemBlocked // the path matches a blocked glob; nothing written
	ItemSkipped = work.ItemSkipped // nothing to do (e.g. deleting a missing file)
)

// ItemResult is what happened to one plan item.
type ItemResult struct {
	Path     string      `json:"path"`
	Action   work.Action `json:"action"`
	Status   string      `json:"status"`
	Attempts int         `json:"attempts"`
	Reason   string      `json:"reason,omitempty"`
	// Notes are the notable events: refused blocks, rollbacks, gofmt.
	Notes []string  `json:"notes,omitempty"`
	Usage llm.Usage `json:"usage"`
}

// Result is the outcome of Implement or Revise. It is returned even when
// items failed; a Go error means the run itself could not go on.
type Result struct {
	Items   []ItemResult  `json:"items"`
	Changes ChangeSet     `json:"changes"`
	Checks  []CheckResult `json:"checks,omitempty"`
	// Blocked lists paths the model tried to write but the blocked globs
	// refused.
	Blocked []string `json:"blocked,omitempty"`
	// Diagnostics are the language-server errors the run added to the
	// files it wrote and did not fix (Options.Diagnostics).
	Diagnostics []lsp.Diagnostic `json:"diagnostics,omitempty"`
	// Rewritten names the regions the apply model wrote ("path lines
	// a–b"; Options.ApplyModel), for reviewers to read closely.
	Rewritten []string  `json:"rewritten,omitempty"`
	Usage     llm.Usage `json:"usage"`
	// Summary is a short Markdown summary for the PR body.
	Summary string `json:"summary"`
	// Transcript is the run's actions in order, for logs and reports.
	Transcript []Event `json:"transcript"`
}

// OK reports whether every item is done (or skipped) and every check passed
// (a Note is not a check that failed).
func (r *Result) OK() bool {
	for _, it := range r.Items {
		if it.Status != ItemDone && it.Status != ItemSkipped {
			return false
		}
	}
	for _, c := range r.LastChecks() {
		if !c.OK && !c.Note {
			return false
		}
	}
	return true
}

// LastChecks returns the checks of the last round: the ones that saw the
// final change.
func (r *Result) LastChecks() []CheckResult {
	if len(r.Checks) == 0 {
		return nil
	}
	last := r.Checks[len(r.Checks)-1].Round
	var out []CheckResult
	for _, c := range r.Checks {
		if c.Round == last {
			out = append(out, c)
		}
	}
	return out
}

// Statuses returns every item's outcome, in the order the items ran.
func (r *Result) Statuses() []work.ItemStatus {
	out := make([]work.ItemStatus, 0, len(r.Items))
	for _, it := range r.Items {
		out = append(out, work.ItemStatus{Path: it.Path, Status: it.Status, Reason: it.Reason})
	}
	return out
}

// Changed returns the repository-relative paths the run changed.
func (r *Result) Changed() []string {
	out := make([]string, 0, len(r.Changes.Files))
	for _, f := range r.Changes.Files {
		out = append(out, f.Path)
	}
	return out
}

// Event is one action of a run, for the transcript summary.
type Event struct {
	Item    string `json:"item"`              // plan item path, or "checks"
	Attempt int    `json:"attempt,omitempty"` // 1-based attempt of the item
	Kind    string `json:"kind"`              // prompt, apply, refused, rollback, gofmt, blocked, read, check, done, failed
	Detail  string `json:"detail,omitempty"`
}

// Implement carries out plan in the workspace: items in plan order, each
// through the model and the edit engine, then the checks with bounded fix
// rounds. Items that fail are reported and do not stop the run (each item's
// status is in the Result). A model call that fails for good (ModelError)
// fails its item with the error as reason and leaves the later items not
// attempted; the items before it keep their changes, which are checked as
// usual (without fix rounds) and returned. When no item was done and the
// model failed one (its replies or its server, failure.go), the result
// comes with that *llm.ModelFailure as the error. Any other Go error
// (cancelled, disk) ends the run and leaves the edits made so far on disk.
func (c *Coder) Implement(ctx context.Context, ws *repo.Workspace, spec *work.Spec, plan *work.Plan) (*Result, error) {
	if ws == nil || plan == nil {
		return nil, errors.New("implement: workspace and plan are required")
	}
	if spec == nil {
		spec = &work.Spec{}
	}
	r, err := c.newRun(ctx, ws, spec, plan)
	if err != nil {
		return nil, err
	}
	r.startDiagnostics(ctx)
	defer r.stopDiagnostics()
	for i := range plan.Items {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("implement: %w", err)
		}
		if r.modelErr != nil {
			r.skipItem(i)
			continue
		}
		if err := r.doItem(ctx, i); err != nil {
			return nil, fmt.Errorf("implement %s: %w", plan.Items[i].Path, err)
		}
	}
	if err := r.checkAndFix(ctx); err != nil {
		return nil, fmt.Errorf("implement: checks: %w", err)
	}
	r.stopDiagnostics()
	res, err := r.finish()
	if err != nil {
		return nil, err
	}
	return res, r.modelFailure()
}
