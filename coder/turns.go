package coder

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
)

// maxFormatErrors bounds the replies in a row that hold no usable edit (no
// block, a cut-off reply, code in a fence instead of blocks): the item
// then fails with the reason instead of spending its remaining attempts.
const maxFormatErrors = 3

// replyModel is the coder's model with the finish reason of its last reply
// remembered, so a reply cut at the output limit is never applied as if it
// were whole. A session runs its turns one at a time.
type replyModel struct {
	llm.Model
	finish string
	cost   float64 // summed Response.Cost of the session's calls
}

func (m *replyModel) Chat(ctx context.Context, req llm.Request) (*llm.Response, error) {
	resp, err := m.Model.Chat(ctx, req)
	if err == nil && resp != nil {
		m.finish = resp.FinishReason
		m.cost += resp.Cost
	}
	return resp, err
}

// Protocol forwards the wrapped model's protocol choice (llm.ProtocolChooser).
func (m *replyModel) Protocol(role llm.Role) llm.Protocol {
	if pc, ok := m.Model.(llm.ProtocolChooser); ok {
		return pc.Protocol(role)
	}
	return llm.ProtocolTools
}

// cutFeedback answers a reply cut at the output limit.
const cutFeedback = "Your reply was cut off at the output limit, so nothing of it was applied. " +
	"Send it again, shorter: only the blocks still needed, each with a small SEARCH (the lines to change " +
	"plus a few lines of context), and no explanation. If there is more to change, send the rest in the next reply.\n"

// explicitDone reports whether a reply without blocks says the item is
// finished the way the prompt asks: <chat>done</chat>, or a bare "done".
func explicitDone(text string) bool {
	t := strings.ToLower(chatText(text))
	t = strings.TrimSpace(strings.Trim(t, ".!` \n\t"))
	return t == "done" || t == "all done"
}

// actionRe matches prose that announces an action instead of taking it
// ("let me re-read the file"): not an answer, whatever the round.
var actionRe = regexp.MustCompile(`(?i)^\s*(let me|let's|i'll|i will|i'm going to|i am going to|i need to|i should|first,|next,|now,|ok(ay)?,? let)`)

// declineReason returns the explanation of a reply that declines a review
// comment or CI failure (no code change needed), when it is one: a
// <no-change> tag, or prose that neither holds code in a fence (a fix
// written outside edit blocks) nor announces an action it did not take.
func declineReason(text string) (reason string, why string, ok bool) {
	if r, ok := noChange(text); ok {
		return r, "", true
	}
	prose := chatText(text)
	switch {
	case prose == "":
		return "", "the answer is empty", false
	case strings.Contains(prose, "```") || strings.Contains(prose, "~~~"):
		return "", "the answer holds code in a fence, not edit blocks", false
	case actionRe.MatchString(prose):
		return "", "the answer announces a step instead of taking it", false
	}
	return prose, "", true
}

// editMarkers are the openings of every edit format the engine reads; text
// beside a tool call is applied only when it holds one.
var editMarkers = []string{"<file-edit", "------- SEARCH", "<<<<<<< SEARCH", "<replace-lines", "<remove-lines", "*** Begin Patch"}

func hasEditMarkers(text string) bool {
	for _, m := range editMarkers {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}

// afterStep applies edit blocks the model wrote in the text of a turn that
// also called a tool: the loop runs only the tool calls, so the blocks would
// otherwise be lost. The engine's report is added to the turn's last tool
// result (a message after tool results must not be a user message for some
// providers).
func (s *session) afterStep(ctx context.Context, st *llm.State) error {
	ai := -1
	for i := len(st.Messages) - 1; i >= 0; i-- {
		if st.Messages[i].Role == llm.Assistant {
			ai = i
			break
		}
	}
	// AfterStep runs only after a turn that called a tool (natively, or
	// as the text protocol's action line), so results follow ai.
	if ai < 0 || ai == len(st.Messages)-1 {
		return nil
	}
	text := answerText(st.Messages[ai].Content)
	if !hasEditMarkers(text) {
		return nil
	}
	last := &st.Messages[len(st.Messages)-1]
	if s.done || s.attempts >= s.r.c.opts.Attempts {
		s.r.event(s.key, s.attempts, "ignored", "edit blocks beside a tool call after the item ended")
		return nil
	}
	fb, err := s.apply(ctx, text, "")
	if err != nil {
		return err
	}
	last.Content += "\n\n[The edit blocks in the text of your last reply, beside the tool call, were applied too.]\n" + fb
	if s.done || s.attempts >= s.r.c.opts.Attempts {
		st.Stop = true
	}
	return nil
}

// formatError counts a reply without a usable edit and fails the session
// after maxFormatErrors in a row.
func (s *session) formatError(why string) {
	s.formatErrs++
	if s.formatErrs >= maxFormatErrors && s.fail == "" {
		s.fail = fmt.Sprintf("format: %d replies in a row held no usable edit block (last: %s)", s.formatErrs, why)
		s.blame(formatFailure(s.formatErrs, why, s.model.finish == llm.FinishLength))
	}
}

// contextFull reports whether the run stopped because the prompt no longer
// fits the model's context window (the loop's StopContextWindow, or the
// older StopTokenBudget carrying llm.ErrContextLength).
func contextFull(out *llm.Outcome) bool {
	return out.Reason == llm.StopContextWindow ||
		(out.Reason == llm.StopTokenBudget && errors.Is(out.Err, llm.ErrContextLength))
}

// compact cuts the conversation back to fit the context window, once per
// session: the system prompt and one user message holding the prompt (made
// afresh from the current files when the session can) and the last
// engine report. A second overflow fails the session with context_window.
func (s *session) compact(msgs []llm.Message) ([]llm.Message, error) {
	if s.compacted || len(msgs) < 2 {
		s.fail = fmt.Sprintf("stopped by %s: the conversation no longer fits the model's context window, "+
			"even cut back to the prompt (attempts: %d)", llm.StopContextWindow, s.attempts)
		s.blame(llm.StopFailure(llm.RoleCoder, llm.StopContextWindow, "", "", llm.ErrContextLength))
		return msgs, nil
	}
	s.compacted = true
	prompt := msgs[1].Content
	if s.reprompt != nil {
		p, err := s.reprompt()
		if err != nil {
			return nil, err
		}
		prompt = p
	}
	if s.applied > 0 || s.lastFB != "" {
		prompt += fmt.Sprintf("\n\n# Earlier in this conversation\nEarlier turns were dropped to fit the context window. "+
			"%d edit block(s) of yours are applied already (the file content above is current). The last report was:\n%s",
			s.applied, clip(s.lastFB, maxReasonBytes))
	}
	s.r.event(s.key, s.attempts, "compacted", "context window full: the conversation was cut back to the prompt")
	s.notes = append(s.notes, fmt.Sprintf("attempt %d: the conversation filled the context window and was compacted", s.attempts))
	return []llm.Message{msgs[0], {Role: llm.User, Content: prompt}}, nil
}

// stopText is the failure reason of a run the loop stopped: the stop
// reason's name first (context_window, output_limit, no_action, ...).
func stopText(reason llm.StopReason, attempts int) string {
	why := ""
	switch reason {
	case llm.StopOutputLimit:
		why = ": the model's replies kept being cut off at the output limit"
	case llm.StopNoAction:
		why = ": the model's replies held neither an edit nor a tool call"
	case llm.StopContextWindow:
		why = ": the conversation no longer fits the model's context window"
	case llm.StopLoop:
		why = ": the model repeated the same call"
	}
	return fmt.Sprintf("stopped by %s%s (attempts: %d)", reason, why, attempts)
}

// withFeedback answers the model's last reply with fb. An empty reply is
// not replayed (some providers reject an empty assistant message): it is
// dropped and fb joins the message before it, so no two user messages, nor
// a user message after tool results, follow each other.
func withFeedback(msgs []llm.Message, fb string) []llm.Message {
	n := len(msgs)
	last := msgs[n-1]
	if last.Role != llm.Assistant || strings.TrimSpace(last.Content) != "" || len(last.ToolCalls) > 0 || n < 2 {
		return append(msgs, llm.Message{Role: llm.User, Content: fb})
	}
	out := append([]llm.Message(nil), msgs[:n-1]...)
	prev := &out[n-2]
	if prev.Role != llm.User && prev.Role != llm.ToolRole {
		return append(out, llm.Message{Role: llm.User, Content: "Your last reply was empty.\n" + fb})
	}
	prev.Content += "\n\n[Your reply to this was empty, so it was dropped.]\n" + fb
	return out
}

// ModelError is a model call that failed for good (after the client's own
// retries) during one session. Implement keeps what earlier items did: the
// item fails with the error as its reason, the items after it are not
// attempted, and the checks still run on the changes made.
type ModelError struct {
	Item string // the plan item (or "checks") the session was about
	Err  error
}

func (e *ModelError) Error() string { return fmt.Sprintf("coder %s: %v", e.Item, e.Err) }
func (e *ModelError) Unwrap() error { return e.Err }

// answerText is a reply's answer without reasoning (llm.AnswerText).
func answerText(text string) string { return llm.AnswerText(text) }

// chatText returns the prose of an answer: the <chat> part when there is
// one, else the whole text, trimmed.
func chatText(text string) string {
	if _, rest, ok := strings.Cut(text, "<chat>"); ok {
		if body, _, ok := strings.Cut(rest, "</chat>"); ok {
			return strings.TrimSpace(body)
		}
	}
	return strings.TrimSpace(text)
}

// noChangeRe is the one way the model may say that an item needs no edit
// (the file already does what the steps ask, often because an earlier item
// did it). Only this explicit tag with a reason is accepted: a reply that
// merely forgot its blocks is refused and retried, never taken as done.
var noChangeRe = regexp.MustCompile(`(?s)<no-change>(.*?)</no-change>`)

// noChange returns the reason of a <no-change> answer, if text is one.
func noChange(text string) (string, bool) {
	m := noChangeRe.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	reason := strings.Join(strings.Fields(m[1]), " ")
	return reason, reason != ""
}

// coderReminder ends every request (llm.Agent.Reminder): the reply forms
// the system prompt lists, where a long context ends.
const coderReminder = "Reply with SEARCH/REPLACE edit blocks copied from the file as it is now, " +
	"<chat>done</chat> after a report when nothing is left, or <no-change>why</no-change>."
