package session_test

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

// What recording adds to one model call and one tool call of an explorer
// step, on SQLite in a temp dir (WAL, synchronous=NORMAL): the request's new
// messages hashed and stored, the reply, a 6 KB tool result. Compare with a
// model call's seconds: go test ./session -run '^$' -bench . -benchtime 2000x
func BenchmarkRecordStep(b *testing.B) {
	st := storetest.SQLite(b)
	r := session.Start(b.Context(), st, meta(1), session.Options{MaxBytes: 1 << 40})
	m := r.Model(fixedModel{reply: strings.Repeat("I will read the handler next. ", 20)})
	tool := r.Tool(readTool(strings.Repeat("func handle(w http.ResponseWriter) {}\n", 160)))
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
		if len(msgs) > 60 { // a compression: the history starts again
			msgs = msgs[:2]
		}
	}
}
