package preagent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/summaries"
	"github.com/issuesmith/issuesmith/work"
)

// Explorer runs the explorer role on one workspace. It holds no per-run
// state: Explore may be called concurrently.
type Explorer struct {
	model llm.Model
	ws    *repo.Workspace
	idx   *summaries.Index
	opts  Options
}

// New returns an Explorer that reads ws, searches idx (nil: no search tool
// and no stored summaries) and asks model, tuned by opts.
func New(model llm.Model, ws *repo.Workspace, idx *summaries.Index, opts Options) *Explorer {
	return &Explorer{model: model, ws: ws, idx: idx, opts: opts.withDefaults()}
}

// maxNudges bounds the times a run that ended without submit_spec (a reply
// without a tool call) is asked again.
const maxNudges = 3

// session is the state of one Explore call.
type session struct {
	e     *Explorer
	opts  Options
	issue Issue // cleaned
	res   *Result
	obs   []observation
	rec   record
	spec  *work.Spec
	// done sums the finished loop runs, side the compression and
	// observer calls; cur is the running loop's usage.
	done, side, cur llm.Usage
	// step is the explorer step being taken, counted over every loop run
	// of this session (a nudge after a text-only reply runs the loop again).
	step, stepBase int
	memo           tokenMemo
	// schemaTokens is what the tool definitions add to every request.
	schemaTokens int
	observed     int       // observer calls made
	observerUse  llm.Usage // their usage
	// task is the task message as first sent, before compression added
	// the record to it.
	task string
	// paths lists the repository once, for "did you mean" (didyoumean.go).
	paths []string
	// window is the model's context window the options were fitted to
	// (fitWindow), 0 before its server stated one.
	window int
}

// Explore reads the repository for the issue and returns the spec. A budget,
// step-limit or loop stop is not an error: the Result holds a partial spec
// built from what was explored, with Spec.Partial set and Note saying why. A
// model failure or cancelled ctx returns an error, and so does a run the
// model ended (prose, unreadable calls, cut or looping replies, a context
// overflow) before finding any file: an *llm.ModelFailure, never a spec
// asking the issue's author questions.
func (e *Explorer) Explore(ctx context.Context, is Issue) (*Result, error) {
	start := time.Now()
	s := &session{e: e, opts: e.opts, issue: is.Clean(), res: &Result{}, memo: tokenMemo{}}
	s.rec.terms = issueTerms(s.issue)
	msgs, err := s.firstMessages(ctx)
	if err != nil {
		return nil, err
	}
	tools := s.tools()
	for _, t := range tools {
		spec := t.Spec()
		s.schemaTokens += llm.CountText(spec.Name+spec.Description) + llm.CountText(string(spec.Parameters))
	}
	agent := &llm.Agent{
		Role: llm.RoleExplorer, Model: e.model, Tools: tools, Budget: s.opts.Budget, Protocol: s.opts.Protocol,
		Hooks:    llm.Hooks{BeforeCall: s.beforeCall, AfterStep: s.afterStep},
		Reminder: explorerReminder,
	}
	out, err := agent.Run(ctx, msgs)
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	s.account(out)
	steps := len(out.Steps)
	for n := 0; n < maxNudges && s.spec == nil && out.Reason == llm.StopFinished && steps < s.opts.Budget.MaxSteps; n++ {
		// The model answered without calling a tool (prose, an empty
		// reply, a call written as text): ask again, saying what was
		// wrong, within what is left of the step budget.
		s.stepBase = s.step
		agent.Budget.MaxSteps = min(2, s.opts.Budget.MaxSteps-steps)
		if b := s.opts.Budget.MaxTokens; b > 0 {
			agent.Budget.MaxTokens = max(1, b-s.done.Total())
		}
		agent.Budget.MaxWall = max(time.Second, s.opts.Budget.MaxWall-time.Since(start))
		out, err = agent.Run(ctx, nudge(out.Messages))
		if err != nil {
			return nil, fmt.Errorf("explore: %w", err)
		}
		s.account(out)
		steps += len(out.Steps)
	}
	s.res.Reason = out.Reason
	s.res.Steps = s.step
	s.res.Usage = s.done.Add(s.side)
	if s.spec != nil {
		s.res.Reason = llm.StopFinished
		s.res.Spec = s.spec
		return s.res, nil
	}
	s.res.Spec = s.partialSpec(out.Reason, out.Messages)
	if f := modelFailure(out, s.res.Spec); f != nil {
		return nil, fmt.Errorf("explore: %w", f)
	}
	return s.res, nil
}

// modelFailure is the run's llm.ModelFailure when the model, not the issue,
// is why no file was found: the run stopped on a model problem (prose or
// calls the bot cannot run every turn, replies cut or looping, a context
// overflow) before any file was judged relevant. Asking the issue's author
// which files to look at would blame an issue that may be fine.
//
// A prompt the server cut (llm.ErrTruncated) fails the run even after
// files were found: what the model said since may not be about the issue.
func modelFailure(out *llm.Outcome, spec *work.Spec) *llm.ModelFailure {
	if len(spec.Files) > 0 && !errors.Is(out.Err, llm.ErrTruncated) {
		return nil
	}
	return llm.StopFailure(llm.RoleExplorer, out.Reason, lastReply(out.Messages), out.Detail, out.Err)
}

// explorerReminder ends every request (llm.Agent.Reminder).
const explorerReminder = "Reply with one tool call. When you know which files must change and why, call submit_spec."

// account adds a finished loop run's usage.
func (s *session) account(out *llm.Outcome) {
	s.done = s.done.Add(out.Usage)
	s.cur = llm.Usage{}
}

// firstMessages builds the system prompt and the task: the cleaned issue,
// delimited as untrusted, the top-level tree and the README's head.
func (s *session) firstMessages(ctx context.Context) ([]llm.Message, error) {
	guidance := s.opts.Guidance
	if guidance == "" && !s.opts.NoGuidance {
		g, err := LoadGuidance(s.e.ws, 0)
		if err != nil {
			return nil, fmt.Errorf("explore: %w", err)
		}
		guidance = g
	}
	sys, err := explorerSystem(guidance, s.e.idx != nil)
	if err != nil {
		return nil, err
	}
	tree, err := s.e.ws.ListDir(ctx, repo.ListDirParams{Depth: 1})
	if err != nil {
		return nil, fmt.Errorf("explore: list the top level: %w", err)
	}
	var b strings.Builder
	b.WriteString(s.issue.Prompt())
	b.WriteString("\n\nThe repository's top level:\n")
	b.WriteString(cutTokens(tree, 1500, "tree cut; list folders with list_dir"))
	if name, head := s.readmeHead(); head != "" {
		fmt.Fprintf(&b, "\n\nThe first lines of %s:\n<readme>\n%s\n</readme>", name, defuse(head, "readme"))
	}
	if named := s.namedFiles(ctx); named != "" {
		b.WriteString("\n\n" + named)
	}
	b.WriteString("\n\nFind the files that must change for this issue, then call submit_spec. Every reply calls one tool.")
	return []llm.Message{{Role: llm.System, Content: sys}, {Role: llm.User, Content: b.String()}}, nil
}

// readmeHead returns the name and first lines of the README, if any.
func (s *session) readmeHead() (string, string) {
	for _, name := range []string{"README.md", "README", "README.rst", "README.txt", "readme.md", "Readme.md"} {
		data, err := s.e.ws.ReadBytes(name)
		if err != nil {
			continue
		}
		lines := strings.Split(CleanText(string(data)), "\n")
		if len(lines) > DefaultReadmeLines {
			lines = append(lines[:DefaultReadmeLines], "[…]")
		}
		return name, cutTokens(strings.Join(lines, "\n"), 1200, "README cut")
	}
	return "", ""
}

// afterStep reports the step and, every few steps, asks the observer.
func (s *session) afterStep(ctx context.Context, st *llm.State) error {
	rec := st.Steps[len(st.Steps)-1]
	s.cur = st.Usage
	var acts []string
	for _, tc := range rec.Calls {
		acts = append(acts, describeCall(tc))
	}
	s.emit(work.Event{Kind: work.EventStep, Step: s.step, Action: strings.Join(acts, "; "), Usage: rec.Usage,
		PromptTokens: s.memo.count(st.Messages)})
	if s.opts.NoObserver || s.spec != nil || s.step%s.opts.ObserveEvery != 0 || s.observerSpent() {
		return nil
	}
	return s.observeTrajectory(ctx, st)
}

// observerSpent reports whether the observer's budget is used up.
func (s *session) observerSpent() bool {
	b := s.opts.ObserverBudget
	return (b.MaxSteps > 0 && s.observed >= b.MaxSteps) || (b.MaxTokens > 0 && s.observerUse.Total() >= b.MaxTokens)
}

// emit records an event and passes it to the progress callback.
func (s *session) emit(ev work.Event) {
	if ev.Kind != work.EventStep {
		s.side = s.side.Add(ev.Usage)
	}
	ev.Agent, ev.Total = llm.RoleExplorer, s.done.Add(s.cur).Add(s.side)
	s.res.Events = append(s.res.Events, ev)
	s.opts.Progress.Emit(ev)
}
