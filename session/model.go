package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/store"
)

// conv is what a conversation sent last: its message count and the hash of
// those messages, so the next call stores only the new ones.
type conv struct {
	n int
	h string
}

// Model returns m recording each call to r (m itself when r is nil).
func (r *Recorder) Model(m llm.Model) llm.Model {
	if r == nil {
		return m
	}
	return &model{next: m, bound: r}
}

// model records calls to bound, or to the Recorder the context carries.
type model struct {
	next  llm.Model
	bound *Recorder
}

func (m *model) Chat(ctx context.Context, req llm.Request) (*llm.Response, error) {
	r := m.bound
	if r == nil {
		r = From(ctx)
	}
	start := time.Now()
	resp, err := m.next.Chat(ctx, req)
	if r != nil {
		r.modelCall(ctx, req, resp, err, time.Since(start))
	}
	return resp, err
}

// Protocol forwards to the wrapped model when it chooses protocols (the
// agent loop asks it: a model speaking the text protocol must keep it).
func (m *model) Protocol(role llm.Role) llm.Protocol {
	if pc, ok := m.next.(llm.ProtocolChooser); ok {
		return pc.Protocol(role)
	}
	return llm.ProtocolTools
}

// modelCall records one chat completion.
func (r *Recorder) modelCall(ctx context.Context, req llm.Request, resp *llm.Response, err error, dur time.Duration) {
	mc := &ModelCall{Role: req.Role}
	mc.System, mc.Tools = r.prompts(ctx, req)
	mc.Input, mc.Rewritten = r.tail(req)
	var d store.SessionDelta
	if err != nil {
		mc.Error = r.clean(err.Error(), maxNote)
	}
	if resp != nil {
		mc.Model, mc.FinishReason, mc.Estimated, mc.Cost = resp.Model, resp.FinishReason, resp.UsageEstimated, resp.Cost
		mc.PromptTokens, mc.CachedTokens, mc.CompletionTokens = resp.Usage.PromptTokens, resp.Usage.CachedTokens, resp.Usage.CompletionTokens
		mc.Text = r.clean(resp.Message.Content, maxText)
		mc.Reasoning = r.clean(resp.Message.Reasoning, maxText)
		for _, tc := range resp.Message.ToolCalls {
			tc.Arguments = r.clean(tc.Arguments, maxArgs)
			mc.ToolCalls = append(mc.ToolCalls, tc)
		}
		d = store.SessionDelta{ModelCalls: 1, PromptTokens: int64(mc.PromptTokens), CachedTokens: int64(mc.CachedTokens),
			CompletionTokens: int64(mc.CompletionTokens), Cost: mc.Cost}
	}
	r.record(ctx, KindModel, dur, Payload{Model: mc}, d)
}

// prompts stores the request's system prompt and tool schemas once per
// session and returns their hashes.
func (r *Recorder) prompts(ctx context.Context, req llm.Request) (system, tools string) {
	var sys string
	for _, m := range req.Messages {
		if m.Role == llm.System {
			sys += m.Content
		}
	}
	if sys != "" {
		system = r.blob(ctx, "system", sys)
	}
	if len(req.Tools) > 0 {
		b, err := json.Marshal(req.Tools)
		if err == nil {
			tools = r.blob(ctx, "tools", string(b))
		}
	}
	return system, tools
}

// blob stores raw, redacted, once per session under its hash; a text seen
// before is neither redacted nor stored again.
func (r *Recorder) blob(ctx context.Context, kind, raw string) string {
	sum := sha256.Sum256([]byte(raw))
	h := hex.EncodeToString(sum[:8])
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.blobs[h] {
		return h
	}
	body := r.secrets.Text(raw)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	stored, err := r.sink.PutSessionBlob(ctx, r.id, h, kind, body)
	if err != nil {
		r.fail(err)
		return h
	}
	r.blobs[h] = true
	if stored {
		r.bytes += int64(len(body))
	}
	return h
}

// tail returns the request's messages new since the previous call of the
// same conversation (keyed by role and opening messages), without the
// system prompt and without the previous reply (recorded with that call).
// When the history was rewritten (compressed), every message comes back
// and rewritten is true.
func (r *Recorder) tail(req llm.Request) (msgs []Message, rewritten bool) {
	key := convKey(req)
	r.mu.Lock()
	prev, seen := r.convs[key]
	r.mu.Unlock()
	// One pass: the hash of the messages the previous call sent, then of
	// all of them.
	h := sha256.New()
	from, at := 0, 0
	if seen && len(req.Messages) >= prev.n {
		for _, m := range req.Messages[:prev.n] {
			writeMessage(h, m)
		}
		at = prev.n
		if hex.EncodeToString(h.Sum(nil)[:12]) == prev.h {
			from = prev.n
		}
	}
	rewritten = seen && from == 0
	for _, m := range req.Messages[at:] {
		writeMessage(h, m)
	}
	r.mu.Lock()
	r.convs[key] = conv{n: len(req.Messages), h: hex.EncodeToString(h.Sum(nil)[:12])}
	r.mu.Unlock()
	for i, m := range req.Messages[from:] {
		if m.Role == llm.System || (i == 0 && from > 0 && m.Role == llm.Assistant) {
			continue
		}
		limit := maxInput
		if m.Role == llm.ToolRole {
			limit = maxToolInput
		}
		msgs = append(msgs, Message{Role: m.Role, Content: r.clean(m.Content, limit), ToolCallID: m.ToolCallID, Bytes: len(m.Content)})
	}
	return msgs, rewritten
}

func convKey(req llm.Request) string {
	n := min(len(req.Messages), 2)
	return string(req.Role) + "/" + hashMessages(req.Messages[:n])
}

func hashMessages(msgs []llm.Message) string {
	h := sha256.New()
	for _, m := range msgs {
		writeMessage(h, m)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func writeMessage(h hash.Hash, m llm.Message) {
	for _, s := range []string{m.Role, m.Content, m.ToolCallID, m.Name} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	for _, tc := range m.ToolCalls {
		h.Write([]byte(tc.ID + "\x00" + tc.Name + "\x00" + tc.Arguments + "\x00"))
	}
	h.Write([]byte{1})
}
