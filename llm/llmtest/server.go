package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/issuesmith/issuesmith/internal/tb"
	"github.com/issuesmith/issuesmith/llm"
)

// Server is a scripted OpenAI-compatible chat completions server on
// loopback. It is safe for concurrent use; requests are matched in arrival
// order.
type Server struct {
	t      tb.TB
	srv    *httptest.Server
	prefix string

	mu       sync.Mutex
	script   Script
	next     int    // index of the first exchange not yet played
	played   []bool // per exchange: its reply was served (Repeat times)
	plays    []int  // per exchange: replies served
	faults   []int  // per exchange: faults already served or skipped
	requests []Request
	models   []string // GET /models lists these; nil: 404, as servers without the endpoint
	// rules are the strict history checks (strict.go); nil: lenient.
	rules    []Rule
	rejected []string
	probes   []Request
	// cache, when set, fills cached_tokens as a prefix cache would
	// (WithPrefixCache).
	cache *llm.PrefixCache
	// The inference servers' own endpoints (engines.go).
	ollama      *Ollama
	shown       []string // models asked about in /api/show
	llamaCtx    int
	maxModelLen int
	lmstudio    *LMStudio
}

// Option configures a Server.
type Option func(*Server)

// WithPrefix serves the API under prefix instead of /v1, as Gemini's
// /v1beta/openai or a proxy path would.
func WithPrefix(prefix string) Option {
	return func(s *Server) { s.prefix = "/" + strings.Trim(prefix, "/") }
}

// NewServer starts a server playing script and stops it when the test
// ends. An unexpected request fails the test (printing the request) and is
// answered 400; exchanges left unplayed at the end fail the test too.
func NewServer(t tb.TB, script Script, opts ...Option) *Server {
	t.Helper()
	s := &Server{t: t, script: script, prefix: "/v1", played: make([]bool, len(script)), plays: make([]int, len(script)),
		faults: make([]int, len(script)), rules: StrictRules()}
	for _, o := range opts {
		o(s)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(func() {
		s.srv.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		// A Forever exchange is the model's answer to whatever comes
		// next: the run may end before asking it again.
		if n := len(s.script); s.next < n && !(s.next == n-1 && s.script[n-1].Forever) {
			played := 0
			for _, p := range s.played {
				if p {
					played++
				}
			}
			t.Errorf("llmtest: script not finished: %d of %d exchanges played; next is %s",
				played, len(s.script), s.label(s.next))
		}
	})
	return s
}

// URL is the base URL to configure as llm.Config.BaseURL or ISSUESMITH_MODEL_BASE_URL (ending in /v1, or the
// WithPrefix path).
func (s *Server) URL() string { return s.srv.URL + s.prefix }

// Config returns an llm.Config for this server: model "test", a 10s
// attempt timeout and retries that do not sleep, so injected faults cost no
// wall time. Adjust fields before llm.NewClient.
func (s *Server) Config() llm.Config {
	return llm.Config{
		BaseURL: s.URL(), Model: "test", Timeout: 10 * time.Second,
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	}
}

// Requests returns every request received so far, faults included.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Remaining is the number of exchanges not yet played.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, p := range s.played {
		if !p {
			n++
		}
	}
	return n
}

// Request is one request as the server understood it.
type Request struct {
	Path        string
	Header      http.Header
	Role        string // the llm.RoleHeader value
	Model       string
	Messages    []llm.Message
	Tools       []string
	Stream      bool
	StreamUsage bool // stream_options.include_usage
	JSON        bool // response_format json_object
	MaxTokens   int  // max_tokens or max_completion_tokens
	Temperature float64
	Body        []byte
	Probe       string // the llm.ProbeHeader value: the role probed
}

// Last is the last message of the request.
func (r Request) Last() llm.Message {
	if len(r.Messages) == 0 {
		return llm.Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

func (s *Server) handle(w http.ResponseWriter, hr *http.Request) {
	if hr.Method == http.MethodGet && hr.URL.Path == s.prefix+"/models" {
		s.listModels(w)
		return
	}
	if s.engineEndpoint(w, hr) {
		return
	}
	body, rerr := io.ReadAll(hr.Body)
	if rerr != nil {
		// The client went away before its request had arrived (a process
		// killed mid-send): no request was made, as a real server sees it.
		return
	}
	req, err := decodeRequest(hr, body)
	if err == nil && req.Probe != "" && s.answerProbe(w, hr, req) {
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	n := len(s.requests)
	if err == nil && hr.URL.Path != s.prefix+"/chat/completions" {
		err = fmt.Errorf("path %s is not %s/chat/completions", hr.URL.Path, s.prefix)
	}
	if err != nil {
		s.mu.Unlock()
		s.unexpected(w, n, req, err.Error())
		return
	}
	if why := s.check(req); why != "" {
		s.rejected = append(s.rejected, why)
		s.mu.Unlock()
		s.t.Errorf("llmtest: request #%d breaks a provider's history rule (strict mode): %s\n%s", n, why, describe(req))
		writeError(w, http.StatusBadRequest, why)
		return
	}
	i, fault, why := s.pick(req, body)
	if why != "" {
		s.mu.Unlock()
		s.unexpected(w, n, req, why)
		return
	}
	ex := s.script[i]
	s.mu.Unlock()
	if fault != nil {
		serveFault(w, hr, *fault, req)
		return
	}
	a := s.withCache(ex.Reply, req)
	if o := s.ollama; o != nil && o.Truncate && a.Usage == nil && !a.NoUsage {
		a.Usage = &Usage{Prompt: o.kept(req), Completion: 5}
	}
	if l := s.lmstudio; l != nil && l.Truncate && l.Loaded > 0 && a.Usage == nil && !a.NoUsage {
		a.Usage = &Usage{Prompt: (&Ollama{Ctx: l.Loaded, Truncate: true}).kept(req), Completion: 5}
	}
	serveAnswer(w, hr, a, req)
}

// pick chooses the exchange for req: the next one, or, when the next one
// is AnyOrder, the first unplayed exchange of its AnyOrder group that
// matches. It returns the fault to serve, if any, or why nothing matched.
// The caller holds s.mu.
func (s *Server) pick(req Request, body []byte) (int, *Fault, string) {
	if n := len(s.script); s.next >= n && n > 0 && s.script[n-1].Forever && match(s.script[n-1].Expect, req) == "" {
		s.plays[n-1]++
		return n - 1, nil, ""
	}
	if s.next >= len(s.script) {
		return 0, nil, fmt.Sprintf("the script has no exchange left (all %d played)", len(s.script))
	}
	var whys []string
	for i := s.next; i < len(s.script); i++ {
		if i > s.next && !(s.script[s.next].AnyOrder && s.script[i].AnyOrder) {
			break
		}
		if s.played[i] {
			continue
		}
		ex := s.script[i]
		if why := match(ex.Expect, req); why != "" {
			whys = append(whys, fmt.Sprintf("it does not match %s: %s", s.label(i), why))
			continue
		}
		for s.faults[i] < len(ex.Faults) {
			f := &ex.Faults[s.faults[i]]
			switch {
			case f.Unless == "":
				s.faults[i]++
				return i, f, ""
			case !bytes.Contains(body, []byte(f.Unless)):
				return i, f, "" // served again until a request has the text
			}
			s.faults[i]++
		}
		s.plays[i]++
		if s.plays[i] < max(1, ex.Repeat) {
			return i, nil, ""
		}
		s.played[i] = true
		for s.next < len(s.script) && s.played[s.next] {
			s.next++
		}
		return i, nil, ""
	}
	return 0, nil, strings.Join(whys, "; ")
}

func (s *Server) label(i int) string {
	if i >= len(s.script) {
		return "end of script"
	}
	if s.script[i].Name != "" {
		return fmt.Sprintf("exchange %d (%s)", i+1, s.script[i].Name)
	}
	return fmt.Sprintf("exchange %d", i+1)
}

func (s *Server) unexpected(w http.ResponseWriter, n int, req Request, why string) {
	s.t.Errorf("llmtest: unexpected request #%d: %s\n%s", n, why, describe(req))
	writeError(w, http.StatusBadRequest, "llmtest: unexpected request: "+why)
}

// describe renders a request for a failure message.
func describe(r Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  path=%s role=%q model=%q stream=%v json=%v tools=%v\n", r.Path, r.Role, r.Model, r.Stream, r.JSON, r.Tools)
	from := max(0, len(r.Messages)-4)
	if from > 0 {
		fmt.Fprintf(&b, "  ... %d earlier messages\n", from)
	}
	for _, m := range r.Messages[from:] {
		text := m.Content
		for _, tc := range m.ToolCalls {
			text += fmt.Sprintf(" [call %s %s]", tc.Name, tc.Arguments)
		}
		if len(text) > 300 {
			text = text[:300] + "…"
		}
		fmt.Fprintf(&b, "  %s: %s\n", m.Role, strings.ReplaceAll(text, "\n", "\\n"))
	}
	return b.String()
}

// answerProbe answers a start-up probe that no exchange expects with a
// well-formed call of the first offered tool (or "OK"), outside the script,
// so tests of serve and solve need not script it. It records the request in
// Probes, not Requests.
func (s *Server) answerProbe(w http.ResponseWriter, hr *http.Request, req Request) bool {
	s.mu.Lock()
	expected := s.next < len(s.script) && s.script[s.next].Expect.Probe
	if !expected {
		s.probes = append(s.probes, req)
	}
	s.mu.Unlock()
	if expected {
		return false
	}
	a := Answer{Content: "OK"}
	if len(req.Tools) > 0 {
		a = Answer{ToolCalls: []CallSpec{{ID: "probe_1", Name: req.Tools[0], Args: map[string]any{"word": "ready"}}}}
	}
	serveAnswer(w, hr, a, req)
	return true
}

// Probes returns the start-up probe requests the server answered itself.
func (s *Server) Probes() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.probes...)
}

// WithModels makes GET /models list names (OpenAI's list format), as
// OpenAI, vLLM and Ollama do; without it GET /models answers 404.
func WithModels(names ...string) Option { return func(s *Server) { s.models = names } }

// listModels answers GET /models; it plays no exchange of the script.
func (s *Server) listModels(w http.ResponseWriter) {
	if s.models == nil {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	type model struct {
		ID          string `json:"id"`
		Object      string `json:"object"`
		MaxModelLen int    `json:"max_model_len,omitempty"` // vLLM (WithVLLM)
	}
	out := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, n := range s.models {
		out.Data = append(out.Data, model{ID: n, Object: "model", MaxModelLen: s.maxModelLen})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
