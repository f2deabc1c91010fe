package llm_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// sleeps records the waits between retries instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// newClient returns a Client for srv whose retries do not sleep.
func newClient(t *testing.T, srv *llmtest.Server, edit ...func(*llm.Config)) (*llm.Client, *sleeps) {
	t.Helper()
	sl := &sleeps{}
	cfg := llm.Config{
		BaseURL: srv.URL(), APIKey: "sk-test-key", Model: "test-model",
		Timeout: 5 * time.Second, Sleep: sl.sleep,
	}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := llm.NewClient(cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c, sl
}

// cancelOnStream is an HTTP transport that cancels a context as soon as a
// response's headers arrive: a cancellation in the middle of a stream,
// without timing guesses.
type cancelOnStream struct{ cancel context.CancelFunc }

func (c cancelOnStream) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if strings.HasSuffix(req.URL.Path, "/chat/completions") { // not the window's read (window.go)
		c.cancel()
	}
	return resp, err
}

func userMsg(s string) []llm.Message { return []llm.Message{{Role: llm.User, Content: s}} }
