package coder

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/coder/edit"
	"github.com/issuesmith/issuesmith/llm"
)

// maxReasonBytes bounds the engine report quoted in a failed item's reason
// (it ends up in comments and the PR body).
const maxReasonBytes = 1500

// session is the exchange with the model about one plan item (or one fix
// round, or one review comment): prompt, edits, feedback, until the edits
// apply cleanly or the attempts run out.
type session struct {
	r        *run
	key      string   // item path, "checks" or "review", for the transcript
	paths    []string // the session's own files, snapshotted before each attempt
	def      string   // target of blocks that name no file
	attempts int
	reads    int
	applied  int // blocks applied (and kept) so far
	done     bool
	fail     string // why the session failed, when it did
	// failure is the model's failure behind fail, when the model is to
	// blame (failure.go).
	failure *llm.ModelFailure
	lastFB  string
	notes   []string
	usage   llm.Usage
	// mayDecline lets an answer without blocks end the session (a review
	// comment that needs no code change); declined holds its explanation.
	mayDecline bool
	declined   string
	// formatErrs counts replies in a row without a usable edit.
	formatErrs int
	steps      int // model calls of the session (Options.MaxSteps)
	// compacted is set once the conversation was cut back to fit the
	// model's context window (done at most once per session).
	compacted bool
	// reprompt, when set, renders the session's prompt afresh (current
	// file content) for that compaction.
	reprompt func() (string, error)
	model    *replyModel
}

func (r *run) newSession(key string, paths []string) *session {
	def := ""
	if len(paths) == 1 {
		def = paths[0]
	}
	return &session{r: r, key: key, paths: paths, def: def, model: &replyModel{Model: r.c.model}}
}

// fill copies the session's outcome into an item result.
func (s *session) fill(ir *ItemResult) {
	ir.Attempts, ir.Notes, ir.Usage = s.attempts, s.notes, s.usage
	if s.declined != "" {
		ir.Status, ir.Reason = ItemSkipped, "no code change: "+s.declined
		return
	}
	if s.done {
		ir.Status = ItemDone
		s.r.event(s.key, s.attempts, "done", "%d block(s) applied", s.applied)
		return
	}
	ir.Status, ir.Reason = ItemFailed, s.fail
	if s.failure != nil {
		s.r.failures = append(s.r.failures, itemFailure{item: s.key, f: s.failure})
	}
	s.r.event(s.key, s.attempts, "failed", "%s", s.fail)
}

// converse runs the exchange. Tool-call turns go through the one agent loop
// (llm.Agent); a reply with edit blocks in its text ends the agent's run, is
// applied here, and the engine's report goes back as the next user message.
// The session ends only on an applied edit, an explicit done or no-change,
// or a failure with its reason: a reply cut at the output limit is never
// applied, and replies without a usable edit are bounded. A Go error is our
// own failure (model unreachable, disk); everything the model can fix is
// feedback.
func (s *session) converse(ctx context.Context, prompt string) error {
	defer s.account()
	msgs := []llm.Message{{Role: llm.System, Content: s.r.c.systemPrompt(s.model.Protocol(llm.RoleCoder))}, {Role: llm.User, Content: prompt}}
	for !s.done && s.fail == "" && s.declined == "" {
		budget, ok := s.budget()
		if !ok {
			break
		}
		agent := llm.Agent{Role: llm.RoleCoder, Model: s.model, Tools: s.tools(), Budget: budget,
			Hooks: llm.Hooks{AfterStep: s.afterStep}, Reminder: coderReminder}
		s.model.finish = ""
		out, err := agent.Run(ctx, msgs)
		if out != nil {
			s.usage = s.usage.Add(out.Usage)
			s.steps += len(out.Steps)
			msgs = out.Messages
		}
		if err != nil {
			if out != nil && out.Reason == llm.StopModelError && ctx.Err() == nil {
				s.fail = fmt.Sprintf("stopped by %s: %v (attempts: %d)", llm.StopModelError, err, s.attempts)
				s.blame(llm.CallFailure(llm.RoleCoder, err))
				return &ModelError{Item: s.key, Err: err}
			}
			return fmt.Errorf("coder %s: %w", s.key, err)
		}
		if s.done || s.declined != "" || s.attempts >= s.r.c.opts.Attempts {
			continue
		}
		if errors.Is(out.Err, llm.ErrTruncated) {
			// The server cut the prompt without a word (Ollama's num_ctx):
			// compacting would only hide a window too small for the item.
			f := llm.StopFailure(llm.RoleCoder, out.Reason, "", out.Detail, out.Err)
			s.fail = f.Error()
			s.blame(f)
			break
		}
		if contextFull(out) {
			if msgs, err = s.compact(msgs); err != nil {
				return err
			}
			continue
		}
		if out.Reason != llm.StopFinished {
			s.fail = stopText(out.Reason, s.attempts)
			s.blame(llm.StopFailure(llm.RoleCoder, out.Reason, out.Final.Content, out.Detail, out.Err))
			break
		}
		last := msgs[len(msgs)-1]
		if last.Role != llm.Assistant {
			// Only edit_file's Stop ends a turn on a tool result, and it
			// stops when done or out of attempts, both handled above.
			s.fail = fmt.Sprintf("the turn ended on a tool result after %d attempts", s.attempts)
			break
		}
		fb, err := s.answer(ctx, last)
		if err != nil {
			return err
		}
		if !s.done && s.declined == "" && s.fail == "" {
			msgs = withFeedback(msgs, fb)
		}
	}
	return nil
}

// answer handles a reply that called no tool: a cut reply is answered
// without applying it, anything else goes through apply.
func (s *session) answer(ctx context.Context, last llm.Message) (string, error) {
	if s.model.finish == llm.FinishLength {
		s.attempts++
		s.lastFB = cutFeedback
		s.r.event(s.key, s.attempts, "refused", "reply cut at the output limit; nothing applied")
		s.formatError("the reply was cut off at the output limit")
		return cutFeedback, nil
	}
	return s.apply(ctx, answerText(last.Content), "")
}

// budget is the agent budget of the session's next run, or false when a
// run-wide budget is spent (s.fail says which).
func (s *session) budget() (llm.Budget, bool) {
	o := s.r.c.opts
	if s.attempts >= o.Attempts {
		s.fail = fmt.Sprintf("no clean edit after %d attempts; last report:\n%s", s.attempts, clip(s.lastFB, maxReasonBytes))
		return llm.Budget{}, false
	}
	budget := llm.Budget{MaxSteps: (o.Attempts - s.attempts) + (o.MaxReads - s.reads) + 1}
	if o.MaxSteps > 0 {
		if left := o.MaxSteps - s.steps; left <= 0 {
			s.fail = fmt.Sprintf("stopped by step_limit: the item's %d model calls are used (attempts: %d)", o.MaxSteps, s.attempts)
			return llm.Budget{}, false
		} else if left < budget.MaxSteps {
			budget.MaxSteps = left
		}
	}
	if o.MaxTokens > 0 {
		if budget.MaxTokens = o.MaxTokens - s.r.used.Total() - s.usage.Total(); budget.MaxTokens <= 0 {
			s.fail = fmt.Sprintf("the run's token budget of %d is exhausted (attempts: %d)", o.MaxTokens, s.attempts)
			return llm.Budget{}, false
		}
	}
	if o.MaxCost > 0 {
		if budget.MaxCost = o.MaxCost - s.r.cost - s.model.cost; budget.MaxCost <= 0 {
			s.fail = fmt.Sprintf("stopped by cost_budget: the run's cost budget of %.2f is spent (attempts: %d)", o.MaxCost, s.attempts)
			return llm.Budget{}, false
		}
	}
	if o.MaxWall > 0 {
		if budget.MaxWall = o.MaxWall - time.Since(s.r.start); budget.MaxWall <= 0 {
			s.fail = fmt.Sprintf("the run's time budget of %s is exhausted (attempts: %d)", o.MaxWall, s.attempts)
			return llm.Budget{}, false
		}
	}
	return budget, true
}

// account adds the session's usage to the run's budget.
func (s *session) account() {
	s.r.used = s.r.used.Add(s.usage)
	s.r.cost += s.model.cost
	s.model.cost = 0
}

// apply runs one attempt: the model's edit text through the engine in
// partial mode, then the syntax guard and gofmt. It returns the feedback for
// the model. defPath overrides the session's default target.
func (s *session) apply(ctx context.Context, text, defPath string) (string, error) {
	r := s.r
	s.attempts++
	if defPath == "" {
		defPath = s.def
	}
	snaps := map[string]snapshot{}
	for p := range r.allowed {
		sn, err := r.tree.snap(p)
		if err != nil {
			return "", err
		}
		snaps[p] = sn
	}
	rep, err := edit.ApplyIn(r.tree.root, text, edit.Options{Path: defPath, Partial: true, Blocked: r.isBlocked,
		NoLineRanges: r.c.opts.NoLineEdits, Submodules: r.ws.Submodules()})
	if err != nil {
		return "", fmt.Errorf("apply edits for %s: %w", s.key, err)
	}
	if rep.Problem != "" || len(rep.Blocks) == 0 {
		return s.noBlocks(text, rep), nil
	}
	scopeFB := s.noteBlocks(rep)
	rolled, guardFB, err := s.guard(rep.Changed, snaps)
	if err != nil {
		return "", err
	}
	kept := 0
	for _, b := range rep.Blocks {
		if b.Status == edit.StatusApplied && !rolled[cleanRel(b.Path)] {
			kept++
		}
	}
	s.applied += kept
	var keptPaths []string
	for _, p := range rep.Changed {
		if !rolled[p] {
			keptPaths = append(keptPaths, p)
		}
	}
	added := s.newErrors(ctx, keptPaths, snaps)
	rescued, rescueFB := false, ""
	if !rep.OK() && r.c.opts.ApplyModel && s.lastAttempt() {
		if rescued, rescueFB, err = s.rescue(ctx, text, defPath, rep, rolled); err != nil {
			return "", err
		}
	}
	if kept > 0 {
		s.formatErrs = 0
	}
	if (rep.OK() || rescued) && len(rolled) == 0 {
		r.event(s.key, s.attempts, "apply", "%d block(s) applied", len(rep.Blocks))
		if len(added) > 0 && s.attempts < r.c.opts.Attempts {
			regions, err := s.changedRegions(keptPaths, snaps)
			if err != nil {
				return "", err
			}
			s.lastFB = "All blocks applied.\n" + diagFeedback(added) + regions
			return s.lastFB, nil
		}
		s.done = true
		if rescueFB != "" {
			return "All blocks applied.\n" + rescueFB, nil
		}
		return "All blocks applied.", nil
	}
	var b strings.Builder
	if guardFB != "" {
		// The rollback comes first: the engine's report below says
		// "applied" for blocks that were undone afterwards.
		b.WriteString(guardFB)
		b.WriteString("\nEngine report (before the rollback):\n")
	}
	b.WriteString(rep.Feedback())
	b.WriteString(rescueFB)
	b.WriteString(scopeFB)
	if len(added) > 0 {
		b.WriteString(diagFeedback(added))
	}
	regions, err := s.changedRegions(keptPaths, snaps)
	if err != nil {
		return "", err
	}
	b.WriteString(regions)
	if s.applied > 0 {
		b.WriteString("The item is done only when every refused block is applied or you answer <chat>done</chat> " +
			"(nothing else left to change).\n")
	}
	s.lastFB = b.String()
	return s.lastFB, nil
}

// noBlocks handles an answer without an edit block: an explicit done after
// earlier edits, an explicit no-change, a decline where declining is allowed
// (review, CI fix); anything else is a format error fed back to the model.
func (s *session) noBlocks(text string, rep *edit.Report) string {
	r := s.r
	if s.applied > 0 && explicitDone(text) {
		s.done = true
		return ""
	}
	if reason, ok := noChange(text); ok {
		s.declined = reason
		r.event(s.key, s.attempts, "declined", "%s", firstLine(reason))
		return ""
	}
	why := ""
	if s.mayDecline {
		reason, whyNot, ok := declineReason(text)
		if ok {
			s.declined = reason
			r.event(s.key, s.attempts, "declined", "%s", firstLine(reason))
			return ""
		}
		why = whyNot
	}
	fb := rep.Feedback()
	if rep.Problem == "" || why != "" {
		if why == "" {
			why = "the answer holds no edit block"
		}
		fb = "No edit applied: " + why + ".\n"
	}
	s.lastFB = fb
	r.event(s.key, s.attempts, "refused", "no edit blocks: %s", firstLine(fb))
	s.formatError(strings.TrimSuffix(strings.TrimPrefix(firstLine(fb), "No edit applied: "), "."))
	fb += "Answer with SEARCH/REPLACE blocks inside <file-edit filePath=\"...\"> tags."
	switch {
	case s.applied > 0:
		fb += " Blocks of your earlier answers are still refused (see the last report): resend them fixed, " +
			"or, if nothing is left to change, answer <chat>done</chat>."
	case s.mayDecline:
		fb += " If no code change is needed, answer <no-change>why, in one sentence</no-change> and no blocks."
	}
	return fb + "\n"
}

// noteBlocks records refused and blocked blocks in notes and transcript and
// returns extra feedback naming the files that may be written.
func (s *session) noteBlocks(rep *edit.Report) string {
	r := s.r
	applied, refused := 0, 0
	var blocked []string // "path: why"
	var reasons []string // "block 2: not_found"
	for _, b := range rep.Blocks {
		switch b.Status {
		case edit.StatusApplied, edit.StatusAlreadyApplied:
			applied++
			continue
		}
		refused++
		reasons = append(reasons, fmt.Sprintf("block %d: %s", b.Index, b.Reason))
		if b.Reason == edit.ReasonBlocked || b.Reason == edit.ReasonSubmodule {
			p := cleanRel(b.Path)
			why := "outside the approved plan"
			if w := r.blockedWhy(p); w != "" {
				why = w
				r.res.Blocked = appendUnique(r.res.Blocked, p)
			}
			s.notes = append(s.notes, fmt.Sprintf("attempt %d: write to %s refused: %s", s.attempts, p, why))
			r.event(s.key, s.attempts, "blocked", "%s: %s", p, why)
			blocked = append(blocked, p+": "+why)
			continue
		}
		s.notes = append(s.notes, fmt.Sprintf("attempt %d: block %d refused (%s): %s", s.attempts, b.Index, b.Reason, b.Message))
	}
	if refused > 0 {
		r.event(s.key, s.attempts, "refused", "%d applied, %d refused (%s)", applied, refused, strings.Join(reasons, ", "))
	}
	if len(blocked) == 0 {
		return ""
	}
	var ok []string
	for p := range r.allowed {
		if r.blockedWhy(p) == "" {
			ok = append(ok, p)
		}
	}
	sort.Strings(ok)
	return fmt.Sprintf("Not written: %s.\nDo not resend blocks for these paths: they are never written. "+
		"The files you may write are: %s. If nothing else is needed, answer <chat>done</chat>.\n",
		strings.Join(blocked, "; "), strings.Join(ok, ", "))
}
