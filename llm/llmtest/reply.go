package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

func writeError(w http.ResponseWriter, status int, msg string) { writeErrorCode(w, status, msg, "") }

func writeErrorCode(w http.ResponseWriter, status int, msg, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	e := map[string]any{"message": msg, "type": "llmtest", "code": status}
	if code != "" {
		e["code"], e["type"] = code, code
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": e})
}

func serveFault(w http.ResponseWriter, hr *http.Request, f Fault, req Request) {
	switch {
	case f.Hang > 0:
		select {
		case <-time.After(f.Hang):
		case <-hr.Context().Done():
			return
		}
		writeError(w, http.StatusGatewayTimeout, "llmtest: hung")
	case f.Status != 0:
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		if f.RetryAfterMS != "" {
			w.Header().Set("retry-after-ms", f.RetryAfterMS)
		}
		if f.ResetRequests != "" {
			w.Header().Set("x-ratelimit-reset-requests", f.ResetRequests)
		}
		if f.ResetTokens != "" {
			w.Header().Set("x-ratelimit-reset-tokens", f.ResetTokens)
		}
		msg := f.Message
		if msg == "" {
			msg = fmt.Sprintf("llmtest: injected status %d", f.Status)
		}
		writeErrorCode(w, f.Status, msg, f.Code)
	case f.Malformed && req.Stream:
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\": [{\"delta\": {\"content\": \"lo\"\n\n")
	case f.Malformed:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"x","choices":[{"message":{"role":"assistant","content":"trunc`)
	case f.Drop:
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n")
		w.(http.Flusher).Flush()
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
			}
		}
	case f.StreamError != "":
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n")
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": "llmtest: stream error", "type": f.StreamError}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	case f.Cut:
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n")
	default:
		writeError(w, http.StatusInternalServerError, "llmtest: empty fault")
	}
}

func (a Answer) finish() string {
	switch {
	case a.Finish != "":
		return a.Finish
	case len(a.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func (a Answer) usage() map[string]any {
	if a.Usage == nil || a.NoUsage {
		return nil
	}
	if a.Usage.TotalOnly {
		return map[string]any{"total_tokens": a.Usage.Prompt + a.Usage.Completion}
	}
	u := map[string]any{
		"prompt_tokens": a.Usage.Prompt, "completion_tokens": a.Usage.Completion,
		"total_tokens": a.Usage.Prompt + a.Usage.Completion,
	}
	if a.Usage.Reasoning > 0 {
		u["completion_tokens_details"] = map[string]any{"reasoning_tokens": a.Usage.Reasoning}
	}
	switch {
	case a.Usage.Cached > 0 && a.Usage.DeepSeekCache:
		u["prompt_cache_hit_tokens"] = a.Usage.Cached
		u["prompt_cache_miss_tokens"] = a.Usage.Prompt - a.Usage.Cached
	case a.Usage.Cached > 0:
		u["prompt_tokens_details"] = map[string]any{"cached_tokens": a.Usage.Cached}
	}
	return u
}

func callID(c CallSpec, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("call_%d", i+1)
}

func serveAnswer(w http.ResponseWriter, hr *http.Request, a Answer, req Request) {
	if !req.Stream || a.Plain {
		servePlain(w, a)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	send := func(v any) bool {
		if a.Delay > 0 {
			select {
			case <-time.After(a.Delay):
			case <-hr.Context().Done():
				return false
			}
		}
		b, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	for _, c := range streamChunks(a) {
		if !send(c) {
			return
		}
	}
	if u := a.usage(); u != nil && req.StreamUsage {
		if !send(chunk(nil, u)) {
			return
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func chunk(choices []map[string]any, usage map[string]any) map[string]any {
	if choices == nil {
		choices = []map[string]any{}
	}
	c := map[string]any{"id": "chatcmpl-llmtest", "object": "chat.completion.chunk", "created": 1, "model": "llmtest", "choices": choices}
	if usage != nil {
		c["usage"] = usage
	}
	return c
}

func delta(d map[string]any, finish string) map[string]any {
	ch := map[string]any{"index": 0, "delta": d, "finish_reason": nil}
	if finish != "" {
		ch["finish_reason"] = finish
	}
	return chunk([]map[string]any{ch}, nil)
}

// streamChunks renders a as stream chunks: role, reasoning, content, tool
// call deltas (id and name first, then argument pieces), finish.
func streamChunks(a Answer) []map[string]any {
	first := map[string]any{"role": "assistant"}
	for k, v := range a.Extra {
		first[k] = v
	}
	out := []map[string]any{delta(first, "")}
	if a.Refusal != "" {
		out = append(out, delta(map[string]any{"refusal": a.Refusal}, ""))
	}
	field := a.ReasoningField
	if field == "" {
		field = "reasoning_content"
	}
	for _, p := range pieces(a.Reasoning, a.Chunk) {
		out = append(out, delta(map[string]any{field: p}, ""))
	}
	for _, p := range pieces(a.Content, a.Chunk) {
		out = append(out, delta(map[string]any{"content": p}, ""))
	}
	var whole []any
	for i, c := range a.ToolCalls {
		head := map[string]any{"id": callID(c, i), "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}
		for k, v := range c.Extra {
			head[k] = v
		}
		index := i
		if a.SameIndex {
			index = 0
		}
		if !a.NoIndex {
			head["index"] = index
		}
		if a.NoIDs {
			delete(head, "id")
		}
		if a.WholeCalls || a.ObjectArgs {
			head["function"] = map[string]any{"name": c.Name, "arguments": a.argsValue(c)}
			whole = append(whole, head)
			continue
		}
		out = append(out, delta(map[string]any{"tool_calls": []any{head}}, ""))
		for _, p := range pieces(c.arguments(), a.Chunk) {
			fn := map[string]any{"arguments": p}
			if a.RepeatName {
				fn["name"] = c.Name
			}
			d := map[string]any{"function": fn}
			if !a.NoIndex {
				d["index"] = index
			}
			out = append(out, delta(map[string]any{"tool_calls": []any{d}}, ""))
		}
	}
	if whole != nil {
		out = append(out, delta(map[string]any{"tool_calls": whole}, ""))
	}
	return append(out, delta(map[string]any{}, a.finish()))
}

func pieces(s string, n int) []string {
	if s == "" {
		return nil
	}
	if n <= 0 || n >= len(s) {
		return []string{s}
	}
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func servePlain(w http.ResponseWriter, a Answer) {
	msg := map[string]any{"role": "assistant", "content": a.Content}
	if a.Reasoning != "" {
		field := a.ReasoningField
		if field == "" {
			field = "reasoning_content"
		}
		msg[field] = a.Reasoning
	}
	if a.Refusal != "" {
		msg["refusal"] = a.Refusal
	}
	for k, v := range a.Extra {
		msg[k] = v
	}
	var calls []any
	for i, c := range a.ToolCalls {
		call := map[string]any{"id": callID(c, i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": a.argsValue(c)}}
		for k, v := range c.Extra {
			call[k] = v
		}
		calls = append(calls, call)
	}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	body := map[string]any{
		"id": "chatcmpl-llmtest", "object": "chat.completion", "created": 1, "model": "llmtest",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": a.finish()}},
	}
	if u := a.usage(); u != nil {
		body["usage"] = u
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

// argsValue is a call's arguments as sent: a string, or with ObjectArgs
// the object itself.
func (a Answer) argsValue(c CallSpec) any {
	if a.ObjectArgs && json.Valid([]byte(c.arguments())) {
		return json.RawMessage(c.arguments())
	}
	return c.arguments()
}
