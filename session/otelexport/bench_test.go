package otelexport_test

import (
	"context"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store/storetest"
)

// fixedModel answers at once: the benchmark measures the recording alone.
type fixedModel struct{ reply string }

func (m fixedModel) Chat(context.Context, llm.Request) (*llm.Response, error) {
	return &llm.Response{Message: llm.Message{Role: llm.Assistant, Content: m.reply,
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"server/handler.go"}`}}},
		Usage: llm.Usage{PromptTokens: 12000, CompletionTokens: 300}, Model: "m"}, nil
}

// What exporting adds to recording one model call and one tool call of an
// explorer step (session's BenchmarkRecordStep), on SQLite, the spans sent
// to a loopback receiver: compare "recorded" with "exported" and
// "exported with content".
// go test ./session/otelexport -run '^$' -bench . -benchtime 2000x
func BenchmarkExportStep(b *testing.B) {
	for _, c := range []struct {
		name            string
		export, content bool
	}{{"recorded", false, false}, {"exported", true, false}, {"exported with content", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			opts := session.Options{MaxBytes: 1 << 40}
			if c.export {
				rcv := newReceiver(b)
				exp := exporterTo(b, rcv.URL, "k", c.content)
				b.Cleanup(func() { _ = exp.Shutdown(context.Background()) })
				opts.Wrap = exp.Wrap
			}
			r := session.Start(b.Context(), storetest.SQLite(b), meta(1), opts)
			r.Begin(b.Context(), session.StageExplore, "explore 1")
			m := r.Model(fixedModel{reply: strings.Repeat("I will read the handler next. ", 20)})
			tool := r.Tool(readTool())
			msgs := []llm.Message{{Role: llm.System, Content: strings.Repeat("You are the explorer. ", 400)},
				{Role: llm.User, Content: "The server crashes on empty input."}}
			b.ReportAllocs()
			for b.Loop() {
				resp, err := m.Chat(b.Context(), llm.Request{Role: llm.RoleExplorer, Messages: msgs})
				if err != nil {
					b.Fatal(err)
				}
				res, err := tool.Call(b.Context(), []byte(`{"path":"server/handler.go"}`))
				if err != nil {
					b.Fatal(err)
				}
				msgs = append(msgs, resp.Message, llm.Message{Role: llm.ToolRole, ToolCallID: "c1", Content: res.Content})
				if len(msgs) > 60 {
					msgs = msgs[:2]
				}
			}
		})
	}
}
