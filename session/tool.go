package session

import (
	"context"
	"encoding/json"
	"time"

	"github.com/issuesmith/issuesmith/llm"
)

// Tool returns t recording each call to r (t itself when r is nil).
func (r *Recorder) Tool(t llm.Tool) llm.Tool {
	if r == nil {
		return t
	}
	return &tool{next: t, bound: r}
}

// Tools wraps each of ts with Tool.
func (r *Recorder) Tools(ts []llm.Tool) []llm.Tool {
	if r == nil {
		return ts
	}
	out := make([]llm.Tool, len(ts))
	for i, t := range ts {
		out[i] = r.Tool(t)
	}
	return out
}

// tool records calls to bound, or to the Recorder the context carries.
type tool struct {
	next  llm.Tool
	bound *Recorder
}

func (t *tool) Spec() llm.ToolSpec { return t.next.Spec() }

func (t *tool) Call(ctx context.Context, args json.RawMessage) (llm.ToolResult, error) {
	r := t.bound
	if r == nil {
		r = From(ctx)
	}
	start := time.Now()
	res, err := t.next.Call(ctx, args)
	if r != nil {
		tc := &ToolCall{Name: t.next.Spec().Name, Args: r.clean(string(args), maxArgs),
			Result: r.clean(res.Content, maxResult), ResultBytes: len(res.Content), IsError: res.IsError}
		if err != nil {
			tc.Error = r.clean(err.Error(), maxNote)
		}
		r.record(ctx, KindTool, time.Since(start), Payload{Tool: tc}, zeroDelta)
	}
	return res, err
}
