package preagent

import (
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
)

// stopText says in words for people why a run stopped early; msgs is the
// conversation, for a run the model ended itself.
func stopText(r llm.StopReason, steps int, msgs []llm.Message) string {
	switch r {
	case llm.StopStepLimit:
		return fmt.Sprintf("the explorer reached its step limit (%d steps)", steps)
	case llm.StopTokenBudget:
		return "the explorer used up its token budget"
	case llm.StopCostBudget:
		return "the explorer used up its cost budget"
	case llm.StopWallTime:
		return "the explorer ran out of time"
	case llm.StopLoop:
		return "the explorer kept repeating the same action"
	case llm.StopRepetition:
		return "the model repeated itself (the same text over and over)"
	case llm.StopOutputLimit:
		return "the model's replies kept being cut off at the output limit (raise max_completion_tokens, or use a model that thinks less)"
	case llm.StopNoAction:
		return "the model's replies neither called a tool nor gave a usable answer"
	case llm.StopContextWindow:
		return "the conversation no longer fit the model's context window"
	case llm.StopFinished:
		switch last := lastReply(msgs); {
		case looksLikeCall(last):
			return "the model wrote its tool calls as text instead of calling the tools (if it cannot call tools, set the role's protocol to text)"
		case strings.TrimSpace(last) == "":
			return "the model's last reply was empty"
		}
		return "the model answered in prose instead of calling submit_spec"
	}
	return fmt.Sprintf("the explorer stopped (%s)", r)
}

// lastReply is the text of the newest assistant message.
func lastReply(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.Assistant {
			return answerText(msgs[i].Content)
		}
	}
	return ""
}

// looksLikeCall reports whether text is a tool call written as text.
func looksLikeCall(text string) bool { return llm.LooksLikeTextCall(text) }

// nudge asks a run that ended without submit_spec for the spec once more,
// saying what was wrong with the last reply. An empty reply is not replayed
// (some providers refuse an empty assistant message) and the request joins
// the message before it when that is a tool result or user message.
func nudge(msgs []llm.Message) []llm.Message {
	last := lastReply(msgs)
	text := "Call submit_spec now with what you have found (files, or questions if the issue is unclear). " +
		"Every reply must call a tool; a reply without a tool call is not read."
	switch {
	case looksLikeCall(last):
		text = "Your last reply wrote a tool call as text, so it was not run. " + text +
			" Make a real function call, not its JSON in your reply."
	case last == "":
		text = "Your last reply was empty. " + text
	}
	if n := len(msgs); n > 1 && msgs[n-1].Role == llm.Assistant && strings.TrimSpace(msgs[n-1].Content) == "" && len(msgs[n-1].ToolCalls) == 0 {
		msgs = msgs[:n-1]
	}
	return llm.WithNote(msgs, text)
}

// partialSpec builds the spec of a run that ended before submit_spec from
// everything explored: every observation not yet in the record is judged
// deterministically, files judged relevant become files to modify, and the
// hypothesis becomes the desired behaviour.
func (s *session) partialSpec(r llm.StopReason, msgs []llm.Message) *work.Spec {
	var files []*observation
	for i := range s.obs {
		o := &s.obs[i]
		if !o.folded && !o.IsError && o.Path != "" {
			o.folded = true
			files = append(files, o)
		}
	}
	var notes []fileNote
	for _, p := range uniquePaths(files) {
		notes = append(notes, s.fallbackNote(p, files, msgs))
	}
	s.rec.merge(notes, nil, lastThought(msgs))
	why := stopText(r, s.step, msgs)
	spec := &work.Spec{Topic: s.issue.Title, Partial: true,
		Note: "The explorer did not submit a spec: " + why + ". The files below are those it judged relevant so far; check them before planning."}
	if spec.Topic == "" {
		spec.Topic = "(untitled issue)"
	}
	for _, f := range s.rec.files {
		if f.Relevant {
			spec.Files = append(spec.Files, work.FileChange{Path: f.Path, Action: work.ActionModify, Reason: f.Why})
			spec.Current = append(spec.Current, fmt.Sprintf("`%s`: %s", f.Path, f.Summary))
		}
	}
	if s.rec.hypothesis != "" {
		spec.Desired = []string{s.rec.hypothesis}
	}
	if len(spec.Files) == 0 {
		spec.Questions = []string{"The explorer stopped before it found the files to change: which files or folders should it look at?"}
	}
	return spec
}

// answerText is a reply's answer without reasoning (llm.AnswerText), trimmed.
func answerText(text string) string { return strings.TrimSpace(llm.AnswerText(text)) }
