package preagent

import (
	"context"
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
)

// Observer replies.
const (
	nextContinue = "continue"
	nextDone     = "done"
)

// observerReply is the observer's JSON answer.
type observerReply struct {
	Analysis   string `json:"analysis"`
	Next       string `json:"next"`
	Suggestion string `json:"suggestion"`
}

// observerNote prefixes a suggestion injected into the explorer's
// conversation; doneNote is injected (after any suggestion) when the
// observer says "done".
const (
	observerNote = "A reviewer watching your progress says: "
	doneNote     = "You have found enough: call submit_spec now."
)

// observeTrajectory shows the observer the explorer's work so far, told in
// the first person, and injects its suggestion into the explorer's
// conversation when it gives one. An observer failure or an unreadable reply
// is reported as an event and otherwise ignored: the observer only advises.
func (s *session) observeTrajectory(ctx context.Context, st *llm.State) error {
	var b strings.Builder
	b.WriteString(prompt("first_person.md"))
	b.WriteString("\nMy task:\n")
	b.WriteString(cutTokens(s.issue.Prompt(), 2500, "issue cut"))
	b.WriteString("\n\nMy work so far:\n")
	// The trajectory gets what is left of the compression threshold: the
	// observer's request stays as bounded as the explorer's.
	room := min(s.opts.CompressAt, s.opts.MaxPromptTokens) - llm.CountText(b.String()) - llm.CountText(prompt("observer.md")) - 300
	if s.opts.CompressAt < 0 {
		room = s.opts.MaxPromptTokens - llm.CountText(b.String()) - 1000
	}
	log := st.Messages[min(prefixLen, len(st.Messages)):]
	if s.res.Compressions > 0 {
		// The record lives in the task message since the compression.
		log = append([]llm.Message{{Role: llm.User, Content: s.rec.render(s.opts.RecordTokens)}}, log...)
	}
	b.WriteString(observerLog(log, max(room, 200)))
	req := llm.Request{Role: llm.RoleObserver, JSON: true, Messages: []llm.Message{
		{Role: llm.System, Content: prompt("observer.md")}, {Role: llm.User, Content: b.String()}}}
	s.observed++
	resp, err := s.e.model.Chat(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("observer: %w", ctx.Err())
		}
		s.emit(work.Event{Kind: work.EventObserver, Step: s.step, Detail: "observer failed: " + oneLine(err.Error(), 200)})
		return nil
	}
	s.observerUse = s.observerUse.Add(resp.Usage)
	var r observerReply
	if err := decodeJSON(resp.Message.Content, &r); err != nil {
		s.emit(work.Event{Kind: work.EventObserver, Step: s.step, Usage: resp.Usage, Detail: "observer reply unreadable: " + oneLine(err.Error(), 200)})
		return nil
	}
	note := strings.TrimSpace(r.Suggestion)
	if strings.EqualFold(strings.TrimSpace(r.Next), nextDone) {
		// "done" always reaches the explorer, with any advice before it.
		note = strings.TrimSpace(note + " " + doneNote)
	}
	detail := fmt.Sprintf("next=%s; %s", r.Next, oneLine(r.Analysis, 300))
	if note != "" {
		st.Messages = llm.WithNote(st.Messages, observerNote+note)
		s.res.Suggestions = append(s.res.Suggestions, note)
		detail += "; suggestion: " + oneLine(note, 300)
	}
	s.emit(work.Event{Kind: work.EventObserver, Step: s.step, Usage: resp.Usage, Detail: detail})
	return nil
}

// observerShare bounds each tool result in the observer's log. A fixed
// bound renders every step the same from one observer call to the next,
// so the observer's request grows append-only and a provider's prefix
// cache serves all but its newest steps; a share that shrank as steps came
// rewrote every earlier result at each call.
const observerShare = 400

// observerLog renders log for the observer within room tokens: each result
// cut to observerShare while that fits, else to an equal share of room.
func observerLog(log []llm.Message, room int) string {
	if text := renderSteps(log, observerShare); llm.CountText(text) <= room {
		return text
	}
	return renderLog(log, room)
}
