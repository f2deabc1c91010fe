package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/internal/clip"
)

// StopError ends a run on our own failure: a tool or hook returned a Go
// error. Run returns that error too.
const StopError StopReason = "error"

// LoopPolicy tunes loop detection: a run stops with StopLoop when the same
// step (same tool calls with the same arguments) occurs Repeats times within
// the last Window steps. Zero fields take the defaults (Window 6, Repeats 3).
// It also bounds replies that are no action (see Run).
type LoopPolicy struct {
	Window  int
	Repeats int
	// MaxCutoffs is how many replies in a row may be cut at the output
	// limit before StopOutputLimit (0: 3).
	MaxCutoffs int
	// MaxNoAction is how many replies in a row may be empty, refused,
	// filtered or only malformed calls before StopNoAction (0: 3).
	MaxNoAction int
}

// ProtocolChooser is implemented by models that know which protocol their
// configured model speaks (Client does). Run asks it when Agent.Protocol is
// empty.
type ProtocolChooser interface {
	Protocol(role Role) Protocol
}

// Run drives the loop: model call → the turn's tool calls in order → one
// result per call → again, until the model answers without a call, a tool
// result or hook asks to stop, or a budget runs out. in is not modified.
//
// A reply is never taken as the final answer when it was cut at the output
// limit, refused, stopped by a content filter or empty: the loop tells the
// model and asks again, and a bounded run of such replies (LoopPolicy) ends
// with StopOutputLimit or StopNoAction, Outcome.Detail naming the cause.
// Tool calls written as text are taken as calls; invalid arguments are
// repaired or answered with an error and replaced by {} in the history.
//
// The Outcome is always non-nil. Budget stops, loop detection and a finished
// run return a nil error; a prompt that outgrew the model's context window
// (ErrContextLength, in Outcome.Err) is a StopContextWindow, and a call a
// Gate refused (ErrSpendLimit, in Outcome.Err) a StopTokenBudget. A cancelled ctx returns ctx's error with
// StopCancelled; a failed model call returns the error with StopModelError
// (also in Outcome.Err); a tool or hook Go error returns it with StopError.
func (a *Agent) Run(ctx context.Context, in []Message) (*Outcome, error) {
	r := &run{a: a, start: time.Now(), protocol: a.protocol()}
	if a.Model == nil {
		return r.end(StopError, fmt.Errorf("agent %s: no model", a.Role))
	}
	r.state.Messages = append([]Message(nil), in...)
	r.state.aside = r.aside
	r.tools = make(map[string]Tool, len(a.Tools))
	for _, t := range a.Tools {
		s := t.Spec()
		r.tools[s.Name] = t
		r.specs = append(r.specs, s)
	}
	// wctx bounds model calls, tools and hooks by the wall-time budget;
	// ctx alone tells the caller's cancellation apart from it.
	wctx := ctx
	if b := a.Budget.MaxWall; b > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithDeadline(ctx, r.start.Add(b))
		defer cancel()
	}
	for step := 1; ; step++ {
		if reason := r.budgetStop(ctx, step); reason != "" {
			if reason == StopCancelled {
				return r.end(reason, ctx.Err())
			}
			return r.end(reason, nil)
		}
		r.state.Step = step
		reason, err := r.step(wctx)
		if reason != "" && err != nil {
			reason, err = interrupted(ctx, wctx, reason, err)
		}
		if reason != "" {
			return r.end(reason, err)
		}
	}
}

// interrupted reclassifies a step's failure that happened because the
// caller cancelled (StopCancelled with ctx's error) or the wall budget ran
// out (StopWallTime, no error: a budget stop ends gracefully).
func interrupted(ctx, wctx context.Context, reason StopReason, err error) (StopReason, error) {
	switch {
	case ctx.Err() != nil:
		return StopCancelled, ctx.Err()
	case wctx.Err() != nil:
		return StopWallTime, nil
	}
	return reason, err
}

func (a *Agent) protocol() Protocol {
	if a.Protocol != "" {
		return a.Protocol
	}
	if pc, ok := a.Model.(ProtocolChooser); ok {
		return pc.Protocol(a.Role)
	}
	return ProtocolTools
}

// run is the per-run state of Agent.Run.
type run struct {
	a        *Agent
	start    time.Time
	protocol Protocol
	tools    map[string]Tool
	specs    []ToolSpec
	state    State
	cost     float64
	final    Message
	sigs     []string // step signatures, for loop detection
	ignored  int      // text protocol: actions after the first in this reply
	modelErr error
	cuts     int               // replies cut at the output limit in a row
	noAction int               // replies in a row that were no action (empty, refused, filtered, malformed)
	repeats  int               // replies in a row that repeated themselves (Repetitive)
	detail   string            // Outcome.Detail
	badArgs  map[string]string // call id → why its arguments were not run
	prompts  promptTrack       // the server's prompt counts (truncation.go)
}

func (r *run) budgetStop(ctx context.Context, step int) StopReason {
	b := r.a.Budget
	switch {
	case ctx.Err() != nil:
		return StopCancelled
	case b.MaxSteps > 0 && step > b.MaxSteps:
		return StopStepLimit
	case b.MaxWall > 0 && time.Since(r.start) >= b.MaxWall:
		return StopWallTime
	case b.MaxTokens > 0 && r.state.Usage.Total() >= b.MaxTokens:
		return StopTokenBudget
	case b.MaxCost > 0 && r.cost >= b.MaxCost:
		return StopCostBudget
	}
	return ""
}

// step takes one model turn; a non-empty reason ends the run.
func (r *run) step(ctx context.Context) (StopReason, error) {
	if h := r.a.Hooks.BeforeCall; h != nil {
		if err := h(ctx, &r.state); err != nil {
			return StopError, fmt.Errorf("%s step %d: before call: %w", r.a.Role, r.state.Step, err)
		}
	}
	resp, reason, err := r.call(ctx)
	if reason != "" {
		return reason, err
	}
	msg := resp.Message
	msg.Role = Assistant
	r.state.Usage = r.state.Usage.Add(resp.Usage)
	r.cost += resp.Cost
	rec := StepRecord{Step: r.state.Step, Usage: resp.Usage, Content: truncate(msg.Content, 500)}

	var calls []ToolCall
	if r.protocol == ProtocolText {
		calls, r.ignored = parseTextAction(msg.Content, r.state.Step, r.tools)
	} else {
		if len(msg.ToolCalls) == 0 {
			// Calls written as text (bare JSON, <tool_call> tags, a fenced
			// object) are calls; any other text stays the answer.
			msg.ToolCalls, msg.Content = parseTextCalls(msg.Content, r.state.Step, r.tools)
		}
		msg.ToolCalls = normalizeCalls(msg.ToolCalls)
		calls = msg.ToolCalls
	}
	r.final = msg
	if t := r.classify(resp, msg, calls); t != turnOK {
		r.record(rec)
		return r.retryTurn(t, resp, msg)
	}
	if len(calls) == 0 {
		r.state.Messages = append(r.state.Messages, msg)
		r.record(rec)
		return StopFinished, nil
	}
	calls = r.repairCalls(calls)
	if r.protocol != ProtocolText {
		msg.ToolCalls = calls
	}
	r.state.Messages = append(r.state.Messages, msg)
	rec.Calls = calls
	stop := false
	for _, tc := range calls {
		res, err := r.exec(ctx, tc)
		if err != nil {
			r.record(rec)
			return StopError, fmt.Errorf("%s step %d: tool %s: %w", r.a.Role, r.state.Step, tc.Name, err)
		}
		if res.IsError {
			rec.Errors++
		}
		stop = stop || res.Stop
		r.state.Messages = append(r.state.Messages, r.resultMessage(tc, res))
	}
	r.record(rec)
	if reason := r.formatErrors(calls); reason != "" {
		return reason, nil
	}
	looping := r.looping(calls)
	if h := r.a.Hooks.AfterStep; h != nil {
		if err := h(ctx, &r.state); err != nil {
			return StopError, fmt.Errorf("%s step %d: after step: %w", r.a.Role, r.state.Step, err)
		}
	}
	if stop || r.state.Stop {
		return StopFinished, nil
	}
	if looping {
		return StopLoop, nil
	}
	return "", nil
}

// call asks the model.
func (r *run) call(ctx context.Context) (*Response, StopReason, error) {
	req := Request{Role: r.a.Role, Messages: r.state.Messages}
	if r.protocol == ProtocolText {
		req.Messages = withTextProtocol(req.Messages, r.specs)
	} else {
		req.Tools = r.specs
	}
	req.Messages = withReminder(req.Messages, r.a.Reminder, r.protocol, len(r.specs))
	resp, err := r.a.Model.Chat(ctx, req)
	if err == nil {
		r.state.Window = resp.Window
		err = r.prompts.check(r.state.Messages, resp)
		if err == nil {
			return resp, "", nil
		}
	}
	if ctx.Err() != nil {
		return nil, StopCancelled, ctx.Err() // reclassified by Run
	}
	r.modelErr = err
	if errors.Is(err, ErrContextLength) {
		r.detail = err.Error()
		return nil, StopContextWindow, nil // graceful: what was gathered is kept
	}
	if errors.Is(err, ErrSpendLimit) {
		r.detail = err.Error()
		return nil, StopTokenBudget, nil // a spending limit ends the run as its own budget would
	}
	return nil, StopModelError, fmt.Errorf("%s step %d: %w", r.a.Role, r.state.Step, err)
}

// aside is State.Aside: the request call would make now, without the
// reminder, with question after the last message (joined to it when that
// is a user message: two in a row are refused by some providers).
func (r *run) aside(ctx context.Context, question string) (*Response, error) {
	msgs := append([]Message(nil), r.state.Messages...)
	if n := len(msgs); n > 0 && msgs[n-1].Role == User {
		msgs[n-1].Content = strings.TrimRight(msgs[n-1].Content, "\n") + "\n\n" + question
	} else {
		msgs = append(msgs, Message{Role: User, Content: question})
	}
	req := Request{Role: r.a.Role, Messages: msgs}
	if r.protocol == ProtocolText {
		req.Messages = withTextProtocol(req.Messages, r.specs)
	} else {
		req.Tools = r.specs
	}
	return r.a.Model.Chat(ctx, req)
}

// exec runs one call. Unknown tools and invalid JSON are results, not errors.
func (r *run) exec(ctx context.Context, tc ToolCall) (ToolResult, error) {
	t, ok := r.tools[tc.Name]
	if !ok {
		return ErrorResult("unknown tool %q; available tools: %s", tc.Name, strings.Join(r.toolNames(), ", ")), nil
	}
	if why, bad := r.badArgs[tc.ID]; bad {
		return ErrorResult("%s", why), nil
	}
	args := coerceArgs(tc.Arguments, t.Spec().Parameters)
	return t.Call(ctx, json.RawMessage(args))
}

func (r *run) toolNames() []string {
	names := make([]string, 0, len(r.specs))
	for _, s := range r.specs {
		names = append(names, s.Name)
	}
	return names
}

func (r *run) resultMessage(tc ToolCall, res ToolResult) Message {
	content := res.Content
	if content == "" {
		content = "(no output)" // some servers reject empty tool messages
	}
	if res.IsError {
		content = "error: " + content
	}
	if r.protocol == ProtocolText {
		if r.ignored > 0 {
			content += fmt.Sprintf("\n(only the first action of a reply is run; %d more ignored: send them one per reply)", r.ignored)
		}
		return Message{Role: User, Content: fmt.Sprintf("[result of %s]\n%s", tc.Name, content)}
	}
	return Message{Role: ToolRole, ToolCallID: tc.ID, Name: tc.Name, Content: content}
}

func (r *run) record(rec StepRecord) {
	r.state.Steps = append(r.state.Steps, rec)
}

// looping records this step's signature and reports a loop; one repeat
// before that, it warns the model.
func (r *run) looping(calls []ToolCall) bool {
	p := r.a.Loop
	if p.Window <= 0 {
		p.Window = 6
	}
	if p.Repeats <= 0 {
		p.Repeats = 3
	}
	var b strings.Builder
	for _, tc := range calls {
		b.WriteString(tc.Name)
		b.WriteByte(0)
		b.WriteString(canonicalJSON(tc.Arguments))
		b.WriteByte(0)
	}
	sig := b.String()
	r.sigs = append(r.sigs, sig)
	if len(r.sigs) > p.Window {
		r.sigs = r.sigs[len(r.sigs)-p.Window:]
	}
	n := 0
	for _, s := range r.sigs {
		if s == sig {
			n++
		}
	}
	if n == p.Repeats-1 && n > 1 {
		// One repeat away from the stop: tell the model in the step's
		// last result, the freshest thing it reads.
		last := &r.state.Messages[len(r.state.Messages)-1]
		last.Content += fmt.Sprintf("\n\nnote: you made this same call %d times recently and got the same result; "+
			"another repeat ends the run. Try something different.", n)
	}
	return n >= p.Repeats
}

// canonicalJSON makes {"a":1, "b":2} and {"b":2,"a":1} compare equal.
func canonicalJSON(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s
	}
	return string(b)
}

func (r *run) end(reason StopReason, err error) (*Outcome, error) {
	out := &Outcome{
		Reason: reason, Messages: r.state.Messages, Final: r.final,
		Steps: r.state.Steps, Usage: r.state.Usage, Cost: r.cost, Err: r.modelErr, Detail: r.detail,
	}
	return out, err
}

// truncate cuts s to n bytes on a character boundary, marking the cut.
func truncate(s string, n int) string { return clip.Bytes(s, n, "…") }
