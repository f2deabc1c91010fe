package llm_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// keepRecent is a BeforeCall hook that keeps the prompt at a constant size
// (as the explorer's compression does), so a benchmark measures per-step
// cost rather than a conversation growing with b.N.
func keepRecent(_ context.Context, s *llm.State) error {
	if n := len(s.Messages); n > 3 {
		s.Messages = append(s.Messages[:1:1], s.Messages[n-2:]...)
	}
	return nil
}

func benchTool() llm.Tool {
	return llm.NewTool("read_file", "Read a file.", func(_ context.Context, p readParams) (llm.ToolResult, error) {
		return llm.ToolResult{Content: "package main\n\nfunc main() {}\n"}, nil
	})
}

// BenchmarkAgentStepHTTP is one loop step through the whole stack: the
// real go-openai client streaming SSE from llmtest on loopback, tool-call
// reassembly, the tool, result messages.
func BenchmarkAgentStepHTTP(b *testing.B) {
	script := make(llmtest.Script, 0, b.N+1)
	for i := range b.N {
		script = append(script, llmtest.Call("read_file", fmt.Sprintf(`{"path":"f%d.go"}`, i)).Split(8).WithUsage(500, 20, 0))
	}
	script = append(script, llmtest.Reply("done"))
	srv := llmtest.NewServer(b, script)
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL(), Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	a := &llm.Agent{Model: c, Tools: []llm.Tool{benchTool()}, Hooks: llm.Hooks{BeforeCall: keepRecent}}
	b.ReportAllocs()
	b.ResetTimer()
	out, err := a.Run(b.Context(), userMsg("go"))
	b.StopTimer()
	if err != nil || out.Reason != llm.StopFinished || len(out.Steps) != b.N+1 {
		b.Fatalf("run: %v %s %d steps", err, out.Reason, len(out.Steps))
	}
}

// replayModel answers from a list in memory: it isolates the loop's own
// work (dispatch, JSON checks, loop detection, bookkeeping) from HTTP.
type replayModel struct {
	n, i int
}

func (m *replayModel) Chat(context.Context, llm.Request) (*llm.Response, error) {
	m.i++
	if m.i > m.n {
		return &llm.Response{Message: llm.Message{Role: llm.Assistant, Content: "done"}}, nil
	}
	return &llm.Response{Message: llm.Message{Role: llm.Assistant, ToolCalls: []llm.ToolCall{
		{ID: "c", Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, m.i)},
	}}, Usage: llm.Usage{PromptTokens: 500, CompletionTokens: 20}}, nil
}

// BenchmarkAgentStepLoopOnly is the loop's own overhead per step.
func BenchmarkAgentStepLoopOnly(b *testing.B) {
	a := &llm.Agent{Model: &replayModel{n: b.N}, Tools: []llm.Tool{benchTool()}, Hooks: llm.Hooks{BeforeCall: keepRecent}}
	b.ReportAllocs()
	b.ResetTimer()
	out, err := a.Run(b.Context(), userMsg("go"))
	b.StopTimer()
	if err != nil || len(out.Steps) != b.N+1 {
		b.Fatalf("run: %v %d steps", err, len(out.Steps))
	}
}

// BenchmarkCountText counts tokens of a real 100 KB Go source file.
func BenchmarkCountText(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(goroot(b), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skip(err)
	}
	// Each round counts a different text (a varying last line, built in
	// microseconds), so no memo could answer: this is the tokeniser's own
	// throughput.
	tokens := 0
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		tokens += llm.CountText(string(src) + "// " + strconv.Itoa(i) + "\n")
	}
	b.ReportMetric(float64(tokens)/time.Since(start).Seconds(), "tokens/s")
}

// BenchmarkCountTextRepeated is a TokenCounter's memo: the same long text
// counted again, as a client estimating usage does every call.
func BenchmarkCountTextRepeated(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(goroot(b), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skip(err)
	}
	text := string(src)
	c := llm.NewTokenCounter()
	c.Text(text)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for range b.N {
		c.Text(text)
	}
}

// goroot is the installed Go's GOROOT (go env), whose net/http sources the
// benchmarks count.
func goroot(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("go env GOROOT:", err)
	}
	return strings.TrimSpace(string(out))
}
