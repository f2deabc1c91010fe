package llm

import (
	"errors"
	"fmt"
	"strings"
)

// ErrTruncated: the server cut the prompt to fit a smaller context window
// without an error (Ollama at its default num_ctx drops the oldest
// messages, the issue among them) and the model answered what was left.
// errors.Is(err, ErrContextLength) holds too. The reply is never used: a
// model that never saw the issue makes one up.
var ErrTruncated = errors.New("the server cut the prompt to fit its context window")

// truncatedErr is the evidence of a silent cut: what the server said it
// read against what was sent (counted here) or what it read the call before.
type truncatedErr struct {
	model, base string
	reported    int // the prompt tokens the server said it read
	sent        int // the prompt counted here (o200k_base, an estimate)
	previous    int // the call before's reported prompt, for a fall; else 0
	added       int // the tokens added since the call before, counted here
	window      Window
}

func (e *truncatedErr) Error() string {
	return ErrTruncated.Error() + ": " + e.evidence() + "; raise " + e.window.Setting()
}

// evidence says what the counts showed.
func (e *truncatedErr) evidence() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model %q", e.model)
	if e.base != "" {
		fmt.Fprintf(&b, " at %s", e.base)
	}
	fmt.Fprintf(&b, " read %d prompt tokens", e.reported)
	if e.previous > 0 {
		fmt.Fprintf(&b, " after %d the call before, though about %d were added to the conversation since", e.previous, e.added)
	} else {
		fmt.Fprintf(&b, " of about %d sent", e.sent)
	}
	if e.window.Known() {
		fmt.Fprintf(&b, " (its context window: %s)", e.window)
	}
	b.WriteString(": the oldest messages, the issue among them, were dropped without an error")
	return b.String()
}

func (e *truncatedErr) Is(target error) bool {
	return target == ErrTruncated || target == ErrContextLength
}

// truncated says whether a reported prompt count shows a silent cut of a
// prompt counted here as local tokens, and returns the evidence. reported
// counts cached tokens too (servers that report only the uncached part
// are not mistaken for a cut). The rules, each far outside a tokenizer's
// difference from o200k_base:
//   - Ollama (the server that cuts without an error) reports under half
//     the local count of a long prompt;
//   - the report is within a few tokens of a power of two from 1024 up
//     while the local count is half again as long (Ollama keeps exactly
//     num_ctx tokens, or num_ctx/2+2, of a single message too long:
//     https://github.com/ollama/ollama/issues/3839);
//   - the server stated its window, the report fits it and the local
//     count exceeds it by a tenth.
func truncated(reported, local int, w Window) bool {
	switch {
	case reported <= 0:
		return false // no count to compare (a server that reports none)
	case w.Server == "Ollama" && local >= 1024 && local >= 2*reported:
		return true
	case w.Known() && reported <= w.Tokens && local > w.Tokens+w.Tokens/10:
		return true
	case reported < 1000 || local < reported*3/2:
		return false
	}
	for size := 1024; size <= 1<<21; size *= 2 {
		if reported >= size-8 && reported <= size+8 {
			return true
		}
	}
	return false
}

// promptTrack watches one agent run's prompt counts: the history only
// grows between calls unless a hook rewrote it (compression), so a server
// whose count grew by far less than what was added (or fell) dropped
// messages.
type promptTrack struct {
	prev     []Message // the history the last call sent, before the reminder
	local    int       // its tokens counted here
	reported int       // the prompt tokens the server said that call held
}

// loopTokens counts the loop's histories; its memo makes each message
// counted once however often it is sent.
var loopTokens = NewTokenCounter()

// check records this call (msgs sent, resp its answer) and returns the
// evidence of a cut: the history only grew, and the server's count fell, or
// grew by less than half of the 256 or more tokens added (counted here) (a
// tokenizer's difference from o200k_base is far smaller), on a server that
// may cut without an error: Ollama, or one whose stated window the count
// fits (hosted APIs refuse a long prompt with a 400 instead).
func (p *promptTrack) check(msgs []Message, resp *Response) error {
	prev, before, beforeLocal := p.prev, p.reported, p.local
	p.prev, p.local, p.reported = append([]Message(nil), msgs...), loopTokens.Messages(msgs), 0
	if resp.UsageEstimated {
		return nil
	}
	p.reported = resp.Usage.PromptTokens
	added := p.local - beforeLocal
	now := resp.Usage.PromptTokens + resp.Usage.CachedTokens
	w := resp.Window
	cuts := w.Server == "Ollama" || (w.Known() && now <= w.Tokens) // servers that may cut without an error
	if !cuts || before == 0 || resp.Usage.PromptTokens == 0 || !onlyGrew(prev, msgs) {
		return nil
	}
	fell := now+max(16, before/50) < before
	if !fell && (added < 256 || 2*(now-before) >= added) {
		return nil
	}
	return &truncatedErr{model: resp.Model, reported: resp.Usage.PromptTokens, previous: before,
		added: added, window: resp.Window}
}

// onlyGrew says whether now is prev with messages appended (and text
// appended to a message, as the loop's notes do).
func onlyGrew(prev, now []Message) bool {
	if len(now) < len(prev) {
		return false
	}
	for i, m := range prev {
		n := now[i]
		if n.Role != m.Role || len(n.ToolCalls) != len(m.ToolCalls) || !strings.HasPrefix(n.Content, m.Content) {
			return false
		}
	}
	return true
}
