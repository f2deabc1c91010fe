package session

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/issuesmith/issuesmith/internal/clip"
)

// Clip sizes: what one event keeps of each text before the bound applies.
const (
	maxText      = 32 << 10 // a reply, a diff, a compression record
	maxArgs      = 8 << 10  // a tool call's arguments
	maxResult    = 16 << 10 // a tool result's excerpt
	maxOutput    = 8 << 10  // a check's output tail
	maxInput     = 8 << 10  // a new request message
	maxToolInput = 1 << 10  // a tool result in the request (the tool event has it)
	maxNote      = 4 << 10  // a note, a GitHub write's excerpt, a feedback
	// shrunkResult is what a tool result keeps once shrunk to make room.
	shrunkResult = 256
	// maxReserve bounds the part of the bound only events without texts
	// and the cut markers may use (an eighth of the bound, at most this).
	maxReserve = 64 << 10
)

// shrinkable is a stored tool event whose result can still shrink.
type shrinkable struct {
	seq  int64
	tool ToolCall
	size int
}

func shrinks(t *ToolCall) bool { return len(t.Result) > shrunkResult*2 || len(t.Args) > shrunkResult*2 }

// compactable is a stored event that compact can still make smaller.
type compactable struct {
	seq  int64
	p    Payload
	size int
}

// fit makes room for an event of body, so that the newest events (a run's
// last steps, its final error) keep their texts and the oldest lose
// theirs: it shrinks the oldest tool results while the event does not
// fit, then stores the oldest events again without their texts; only when
// nothing older is left to cut does it fall back to the event without its
// texts, then to nothing. shrunk reports a reduced body; keep false means
// drop it. r.mu is held.
func (r *Recorder) fit(ctx context.Context, p Payload, body string) (out string, shrunk, keep bool) {
	limit := r.opts.MaxBytes - min(maxReserve, r.opts.MaxBytes/8)
	for r.bytes+int64(len(body)) > limit && len(r.shrinkable) > 0 {
		r.shrinkOldest(ctx)
	}
	for r.bytes+int64(len(body)) > limit && len(r.compactable) > 0 {
		r.noteCompacting(ctx)
		r.compactOldest(ctx)
	}
	if r.bytes+int64(len(body)) <= limit {
		return body, false, true
	}
	small, err := json.Marshal(compact(p))
	if err == nil && r.bytes+int64(len(small)) <= r.opts.MaxBytes-r.opts.MaxBytes/64 {
		r.noteCompacting(ctx)
		return string(small), true, true
	}
	if !r.dropping {
		r.dropping = true
		r.marker(ctx, "The session is full: later events were not stored.")
	}
	return "", false, false
}

// noteCompacting marks, once, where events began to lose their texts.
func (r *Recorder) noteCompacting(ctx context.Context) {
	if r.compacting {
		return
	}
	r.compacting = true
	r.marker(ctx, fmt.Sprintf("The session reached its bound of %d bytes: older tool results were shortened, then the "+
		"oldest events were kept without their texts, so that the newest keep theirs.", r.opts.MaxBytes))
}

// compactOldest stores the oldest compactable event again without its
// texts.
func (r *Recorder) compactOldest(ctx context.Context) {
	c := r.compactable[0]
	r.compactable = r.compactable[1:]
	body, err := json.Marshal(compact(c.p))
	if err != nil {
		r.fail(err)
		return
	}
	if len(body) >= c.size {
		return
	}
	if err := r.sink.ShrinkSessionEvent(ctx, r.id, c.seq, string(body)); err != nil {
		r.fail(err)
		return
	}
	r.bytes -= int64(c.size - len(body))
	// A tool event compacted here is no longer a shrinkable one.
	r.shrinkable = slices.DeleteFunc(r.shrinkable, func(s shrinkable) bool { return s.seq == c.seq })
}

// noteStored keeps an event stored whole as compactable (r.mu held). The
// session's first model call is never compacted: its request holds the
// issue, whose title names the session (Record.IssueTitle).
func (r *Recorder) noteStored(seq int64, kind Kind, p Payload, size int) {
	if kind == KindModel && !r.sawModel {
		r.sawModel = true
		return
	}
	if kind != KindCut && size > 512 {
		r.compactable = append(r.compactable, compactable{seq: seq, p: p, size: size})
	}
}

// shrinkOldest cuts the oldest shrinkable tool result to a short excerpt.
func (r *Recorder) shrinkOldest(ctx context.Context) {
	s := r.shrinkable[0]
	r.shrinkable = r.shrinkable[1:]
	t := s.tool
	t.Result = clip.Bytes(t.Result, shrunkResult, fmt.Sprintf("\n[cut to keep the session bounded: %d bytes of the excerpt dropped]", len(t.Result)-shrunkResult))
	t.Args = clip.Bytes(t.Args, shrunkResult, " [cut]")
	body, err := json.Marshal(Payload{Tool: &t})
	if err != nil {
		r.fail(err)
		return
	}
	if err := r.sink.ShrinkSessionEvent(ctx, r.id, s.seq, string(body)); err != nil {
		r.fail(err)
		return
	}
	r.bytes -= int64(s.size - len(body))
	for i := range r.compactable {
		if r.compactable[i].seq == s.seq {
			r.compactable[i].p, r.compactable[i].size = Payload{Tool: &t}, len(body)
			break
		}
	}
}

// marker stores a cut marker (r.mu held).
func (r *Recorder) marker(ctx context.Context, text string) {
	p := Payload{Cut: &Note{Text: text}}
	body, _ := json.Marshal(p)
	r.append(ctx, KindCut, 0, p, string(body), false, zeroDelta)
}

// compact returns p without its long texts: what is kept of an event once
// the session is at its bound (tokens, cost, names, results).
func compact(p Payload) Payload {
	short := func(s string) string { return clip.Bytes(s, 200, " [cut]") }
	if m := p.Model; m != nil {
		c := *m
		c.Input, c.Text, c.Reasoning = nil, short(m.Text), ""
		c.ToolCalls = nil
		for _, tc := range m.ToolCalls {
			tc.Arguments = ""
			c.ToolCalls = append(c.ToolCalls, tc)
		}
		p.Model = &c
	}
	if t := p.Tool; t != nil {
		c := *t
		c.Args, c.Result = short(t.Args), short(t.Result)
		p.Tool = &c
	}
	if x := p.Compression; x != nil {
		c := *x
		c.Record = short(x.Record)
		p.Compression = &c
	}
	if e := p.Edit; e != nil {
		c := *e
		c.Diff, c.Feedback = "", short(e.Feedback)
		p.Edit = &c
	}
	if k := p.Check; k != nil {
		c := *k
		c.Output = short(k.Output)
		p.Check = &c
	}
	if g := p.GitHub; g != nil {
		c := *g
		c.Text = short(g.Text)
		p.GitHub = &c
	}
	if o := p.Observer; o != nil {
		p.Observer = &Note{Text: short(o.Text)}
	}
	return p
}
