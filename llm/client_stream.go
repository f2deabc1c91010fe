package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// errNotStreamed says the server answered a streaming request with a plain
// body; the caller falls back to the non-streaming path.
var errNotStreamed = errors.New("server did not stream")

// stream runs one streaming exchange and assembles the reply.
func (c *Client) stream(ctx context.Context, oreq openai.ChatCompletionRequest) (*Response, error) {
	oreq.Stream = true
	if !c.noStreamUsage.Load() {
		oreq.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	st, err := c.api.CreateChatCompletionStream(ctx, oreq)
	if err != nil && oreq.StreamOptions != nil && rejects(err, "stream_options") {
		c.noStreamUsage.Store(true)
		oreq.StreamOptions = nil
		st, err = c.api.CreateChatCompletionStream(ctx, oreq)
	}
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if ct, _, _ := mime.ParseMediaType(st.Header().Get("Content-Type")); ct == "application/json" {
		return nil, errNotStreamed
	}
	var asm assembler
	chunks, checked := 0, 0
	for {
		raw, err := st.RecvRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("reading stream: %w", err)
		}
		var chunk openai.ChatCompletionStreamResponse
		if err := json.Unmarshal(raw, &chunk); err != nil {
			return nil, fmt.Errorf("%w: stream chunk: %w", ErrMalformedReply, err)
		}
		chunks++
		reasoning, extras := readRawDelta(raw)
		asm.add(chunk, extras)
		asm.reasoning.WriteString(reasoning)
		if chunk.Usage != nil {
			asm.usage.CachedTokens = max(asm.usage.CachedTokens, deepSeekCacheHits(raw))
		}
		if n := asm.content.Len() + asm.reasoning.Len(); n >= checked+repeatCheckEvery {
			checked = n
			if Repetitive(asm.content.String()) || Repetitive(asm.reasoning.String()) {
				// A repetition loop: stop reading (closing the stream
				// ends the server's generation) instead of waiting for
				// the output limit or the window.
				c.log.WarnContext(ctx, "the model repeated itself; its reply was cut", "bytes", n)
				asm.finish = FinishRepetition
				break
			}
		}
	}
	if chunks == 0 {
		return nil, errNotStreamed
	}
	if asm.finish == "" && asm.content.Len() == 0 && len(asm.calls) == 0 && asm.refusal.Len() == 0 {
		// go-openai reports a stream cut before [DONE] as a clean end.
		return nil, fmt.Errorf("%w: stream ended without an answer", ErrMalformedReply)
	}
	return asm.response(), nil
}

// deepSeekCacheHits reads DeepSeek's prompt_cache_hit_tokens, which it
// reports instead of prompt_tokens_details.cached_tokens.
func deepSeekCacheHits(raw []byte) int {
	if !bytes.Contains(raw, []byte("prompt_cache_hit_tokens")) {
		return 0
	}
	var v struct {
		Usage struct {
			Hits int `json:"prompt_cache_hit_tokens"`
		} `json:"usage"`
	}
	_ = json.Unmarshal(raw, &v) // the chunk already decoded once
	return v.Usage.Hits
}

// splitThink moves reasoning written into the answer to the reasoning:
// a leading <think>...</think> block (DeepSeek-R1 and Qwen3 served by
// Ollama, vLLM without a reasoning parser), or everything before a closing
// </think> that has no opening tag (R1 distills through llama.cpp, whose
// template already opened it). A leading <think> never closed (the reply
// was cut while thinking) is all reasoning: draft edits inside reasoning
// must never be taken as the answer.
func splitThink(content, reasoning string) (string, string) {
	add := func(think string) string {
		think = strings.TrimSpace(think)
		if reasoning == "" || think == "" {
			return reasoning + think
		}
		return reasoning + "\n" + think
	}
	if rest, ok := strings.CutPrefix(strings.TrimLeft(content, " \t\r\n"), "<think>"); ok {
		think, answer, closed := strings.Cut(rest, "</think>")
		if !closed {
			return "", add(rest)
		}
		return strings.TrimLeft(answer, " \t\r\n"), add(think)
	}
	if think, answer, ok := strings.Cut(content, "</think>"); ok && !strings.Contains(think, "<think>") {
		return strings.TrimLeft(answer, " \t\r\n"), add(think)
	}
	return content, reasoning
}

// rejects recognises a 400/422 naming a request field the server does not
// support.
func rejects(err error, field string) bool {
	code, _ := statusOf(err)
	return (code == 400 || code == 422) && strings.Contains(strings.ToLower(err.Error()), field)
}

// assembler rebuilds one reply from stream chunks. Tool-call deltas are
// joined by index. Without an index (servers differ here) a delta belongs to
// the call it names by ID; without an ID either, see continues.
type assembler struct {
	content, reasoning, refusal strings.Builder
	calls                       []*ToolCall
	byIndex                     map[int]*ToolCall
	finish                      string
	usage                       Usage
	total                       int // total_tokens reported alone
}

func (a *assembler) add(chunk openai.ChatCompletionStreamResponse, extras map[int]json.RawMessage) {
	if chunk.Usage != nil {
		a.usage = fromUsage(chunk.Usage)
		a.total = totalOnly(chunk.Usage)
	}
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue // we ask for one choice; ignore others
		}
		a.content.WriteString(ch.Delta.Content)
		a.reasoning.WriteString(ch.Delta.ReasoningContent)
		a.refusal.WriteString(ch.Delta.Refusal)
		if ch.FinishReason != "" {
			a.finish = string(ch.FinishReason)
		}
		deltas := ch.Delta.ToolCalls
		if len(deltas) > 1 && deltas[0].Index == nil {
			// Several calls in one delta without indexes are distinct
			// calls by position, whole (Gemini).
			for pos, d := range deltas {
				a.calls = append(a.calls, &ToolCall{ID: d.ID, Name: d.Function.Name, Arguments: d.Function.Arguments, Extra: extras[pos]})
			}
			continue
		}
		for pos, d := range deltas {
			tc := a.addCall(d)
			if e := extras[pos]; e != nil {
				tc.Extra = e
			}
		}
	}
}

func (a *assembler) addCall(d openai.ToolCall) *ToolCall {
	var tc *ToolCall
	switch {
	case d.Index != nil:
		if a.byIndex == nil {
			a.byIndex = map[int]*ToolCall{}
		}
		tc = a.byIndex[*d.Index]
		if tc != nil && d.ID != "" && tc.ID != "" && d.ID != tc.ID {
			// A new id at a used index is a new call (Ollama numbers
			// every parallel call 0).
			tc = nil
		}
		if tc == nil {
			tc = &ToolCall{}
			a.byIndex[*d.Index] = tc
			a.calls = append(a.calls, tc)
		}
	case d.ID != "":
		for _, c := range a.calls {
			if c.ID == d.ID {
				tc = c
			}
		}
		if tc == nil {
			tc = &ToolCall{}
			a.calls = append(a.calls, tc)
		}
	case len(a.calls) > 0 && continues(a.calls[len(a.calls)-1], d):
		tc = a.calls[len(a.calls)-1]
	default:
		tc = &ToolCall{}
		a.calls = append(a.calls, tc)
	}
	if d.ID != "" {
		tc.ID = d.ID
	}
	// Names arrive whole in practice; some servers repeat them per delta.
	if d.Function.Name != "" && tc.Name != d.Function.Name {
		tc.Name += d.Function.Name
	}
	tc.Arguments += d.Function.Arguments
	return tc
}

// continues says whether a delta without index or ID continues last: it
// names no tool, or repeats last's name while last's arguments are still
// incomplete JSON (servers that repeat the name in every delta).
func continues(last *ToolCall, d openai.ToolCall) bool {
	switch d.Function.Name {
	case "":
		return true
	case last.Name:
		return !json.Valid([]byte(last.Arguments))
	}
	return last.Name == ""
}

func (a *assembler) response() *Response {
	msg := Message{Role: Assistant, Content: a.content.String(), Reasoning: a.reasoning.String()}
	msg.Content, msg.Reasoning = splitThink(msg.Content, msg.Reasoning)
	calls := make([]ToolCall, 0, len(a.calls))
	for _, tc := range a.calls {
		calls = append(calls, *tc)
	}
	msg.ToolCalls = normalizeCalls(calls)
	return &Response{Message: msg, FinishReason: a.finish, Usage: a.usage, Refusal: a.refusal.String(), total: a.total}
}
