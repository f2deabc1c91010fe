package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// The start-up probe runs in the background once serving: it neither
// blocks the start nor stops it, logs what each model said and shows it on
// /readyz, naming the protocol setting when a model writes tool calls as
// text (qwen2.5-coder on Ollama).
func TestServeProbesTheModels(t *testing.T) {
	t.Parallel()
	gh := ghtest.New(t, ghtest.Options{})
	asText := llmtest.Reply(`{"name": "report", "arguments": {"word": "ready"}}`).When(llmtest.Expect{Probe: true})
	model := llmtest.NewServer(t, llmtest.Script{asText})
	var logs syncBuffer
	body := readyzAfterProbe(t, gh, model, &logs)
	want := `model probe: model "test-model" (explorer, tools protocol): writes its tool calls as text; ` +
		`the bot runs such calls, but the server did not parse them (llama.cpp: start it with --jinja; vLLM: ` +
		`--enable-auto-tool-choice --tool-call-parser NAME); or use the text protocol: set ISSUESMITH_MODEL_PROTOCOLS (test-model=text)`
	require.Contains(t, body, want)
	require.Contains(t, logs.String(), "level=WARN msg=\"model probe: model \\\"test-model\\\" (explorer")
	require.Len(t, model.Probes(), 0, "the scripted probe was played")
}

// syncBuffer is a bytes.Buffer safe for the logger's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The App's probe checks the window the server states against the
// explorer's first request (the largest a run sends first): a llama.cpp
// started with a 2048-token context is named on /readyz with the flag to
// change, before any issue meets it.
func TestServeProbeChecksTheWindow(t *testing.T) {
	t.Parallel()
	gh := ghtest.New(t, ghtest.Options{})
	calls := llmtest.Call("report", `{"word":"ready"}`).When(llmtest.Expect{Probe: true})
	model := llmtest.NewServer(t, llmtest.Script{calls}, llmtest.WithLlamaCpp(2048))
	body := readyzAfterProbe(t, gh, model, io.Discard)
	require.Contains(t, body, "the context window (2048 tokens) cannot hold the explorer's first request")
	require.Contains(t, body, "--ctx-size")
}

// readyzAfterProbe serves the App against gh and model (logging to logs)
// and returns /readyz once the start-up probe has ended (a minute at most).
func readyzAfterProbe(t *testing.T, gh *ghtest.Server, model *llmtest.Server, logs io.Writer) string {
	t.Helper()
	cfg := startEnv(t, gh, gh.PrivateKey(), model.URL())
	srv, err := New(t.Context(), cfg, slog.New(slog.NewTextHandler(logs, nil)), Tuning{})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-served, "the server shuts down cleanly") })
	select {
	case <-srv.probed:
	case <-time.After(time.Minute):
		t.Fatal("the start-up probe did not end")
	}
	// The probe may end before the engine has started (under load): the
	// page says "starting" until Serve marks the server ready, a flag no
	// event of the test's marks.
	var b []byte
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get("http://" + ln.Addr().String() + "/readyz")
		require.NoError(t, err)
		b, err = io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		require.NoError(t, err)
		if !strings.HasPrefix(string(b), "starting or stopping") || time.Now().After(deadline) {
			break
		}
	}
	require.NotContains(t, string(b), "model probe: running")
	return string(b)
}
