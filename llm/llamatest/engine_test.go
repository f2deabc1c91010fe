package llamatest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llamatest"
)

// TestEveryTemplateTakesEveryShape runs the agent loop, through the real
// client, against llama.cpp serving a random-weight model with each
// family's real chat template: tools streamed and not (with tool results,
// reasoning sent back, an observer's note, a side question, a compressed
// history and the reminder), the text protocol, and a JSON reply. Every
// request must be accepted (no template error), every run must end
// cleanly, and where llama.cpp finds the template's tool-call format its
// grammar-constrained calls, read by its own parser, must be run.
func TestEveryTemplateTakesEveryShape(t *testing.T) {
	engine := llamatest.Find(t)
	var table []string
	// The requests the loop sent the first family whose calls ran (with
	// its calls, their results and its reasoning in the history), sent
	// again to every family: each template takes each shape whatever its
	// own random model wrote.
	var captured []llm.Request
	for _, fam := range engine.Load(t) {
		t.Run(fam.Name, func(t *testing.T) {
			srv := engine.Start(t, fam.Model(t), llamatest.Options{
				Context: 16384, ForceTools: true, TextGrammar: textAction,
			})
			replay := captured
			var record *[]llm.Request
			if captured == nil && fam.Grammar {
				record = &captured
			}
			for _, sh := range shapes {
				t.Run(sh.name, func(t *testing.T) {
					r := runShape(t, srv, sh, record)
					table = append(table, fmt.Sprintf("| %s | %s | %d/%d | %d/%d | %s |",
						fam.Name, sh.name, r.accepted, r.requests, r.parsed, r.ran, r.outcome))
					// A refusal the client learnt the template's shape from
					// (and was answered after) is the table's; one it could
					// not get past fails.
					if r.refused > 0 {
						t.Errorf("%d calls refused by the template (%d of %d requests answered): %s",
							r.refused, r.accepted, r.requests, r.refusal)
					}
					if r.err != nil {
						t.Errorf("run did not end cleanly: %v", r.err)
					}
					if sh.tools && fam.Grammar && r.ran == 0 {
						t.Errorf("llama.cpp's grammar and parser gave no call the loop ran (%d parsed): %s",
							r.parsed, r.outcome)
					}
					if sh.text && r.ran == 0 {
						t.Errorf("no text-protocol action ran: %s", r.outcome)
					}
				})
			}
			if record != nil {
				requireEveryShape(t, captured)
			}
			if len(replay) == 0 {
				return
			}
			t.Run("replayed", func(t *testing.T) {
				answered, refusals := replayAll(t, srv, replay)
				outcome := "every one answered"
				if refusals != "" {
					outcome = "the client learnt the template's shape from its refusal: " + refusals
				}
				table = append(table, fmt.Sprintf("| %s | replayed | %d/%d | - | %s |", fam.Name, answered, len(replay), outcome))
				if fam.TextOnly && !strings.Contains(refusals, "roles") {
					t.Errorf("the template took tool roles it has none of: %q", refusals)
				}
			})
		})
	}
	sort.Strings(table)
	t.Log("\n| family | shape | requests accepted | calls parsed/run | outcome |\n|---|---|---|---|---|\n" +
		strings.Join(table, "\n"))
}

// textAction is what the random model writes in the text protocol: one
// action line.
const textAction = `root ::= ("read_file" | "list_dir") "=>" [a-z]{1,6} ".go"`

type shape struct {
	name            string
	tools, text     bool
	stream, reason  bool
	compress, aside bool
	json            bool
}

var shapes = []shape{
	{name: "tools-stream", tools: true, stream: true, reason: true, compress: true, aside: true},
	{name: "tools-plain", tools: true, reason: true, compress: true},
	{name: "text-stream", text: true, stream: true, compress: true, aside: true},
	{name: "json-plain", json: true},
}

type result struct {
	requests, accepted int
	refused            int // calls the client got a template error for
	parsed, ran        int
	refusal, outcome   string
	err                error
}

// recorder counts the HTTP answers of the chat endpoint and keeps the
// gist of each refusal.
type recorder struct {
	mu                 sync.Mutex
	requests, accepted int
	refusal            string
	refusals           []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if !strings.HasSuffix(req.URL.Path, "/chat/completions") {
		return resp, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	if err == nil && resp.StatusCode == http.StatusOK {
		r.accepted++
	} else if err == nil {
		r.refusal = resp.Status
		r.refusals = append(r.refusals, gist(resp))
	} else {
		r.refusal = err.Error()
	}
	return resp, err
}

// counting counts the tool calls in the client's replies and the calls it
// got a template error for, and records the requests when record is set.
type counting struct {
	llm.Model
	calls, refused int
	record         *[]llm.Request
}

func (c *counting) Chat(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if c.record != nil {
		kept := req
		kept.Messages = append([]llm.Message(nil), req.Messages...)
		*c.record = append(*c.record, kept)
	}
	resp, err := c.Model.Chat(ctx, req)
	if err == nil {
		c.calls += len(resp.Message.ToolCalls)
	}
	if errors.Is(err, llm.ErrTemplate) {
		c.refused++
	}
	return resp, err
}

// replayAll sends each request again through a fresh client (eight
// tokens each: the template's acceptance is what counts); every one must
// be answered. It returns how many were, and the refusals the client
// learnt the template's shape from (the server's 500s before it did).
func replayAll(t *testing.T, srv *llamatest.Server, reqs []llm.Request) (int, string) {
	rec := &recorder{}
	cfg := srv.Config()
	cfg.HTTPClient = &http.Client{Transport: rec}
	cfg.SendReasoning = map[string]bool{"tiny": true}
	client, err := llm.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	answered := 0
	for i, req := range reqs {
		req.MaxTokens = 8
		if _, err := client.Chat(t.Context(), req); err != nil {
			t.Errorf("replayed request %d (%d messages, %d tools) refused: %v", i, len(req.Messages), len(req.Tools), err)
			continue
		}
		answered++
	}
	return answered, strings.Join(rec.refusals, "; ")
}

func runShape(t *testing.T, srv *llamatest.Server, sh shape, record *[]llm.Request) result {
	rec := &recorder{}
	cfg := srv.Config()
	cfg.HTTPClient = &http.Client{Transport: rec}
	cfg.NoStream = !sh.stream
	cfg.MaxTokens = 160
	if sh.reason {
		cfg.SendReasoning = map[string]bool{"tiny": true}
	}
	client, err := llm.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	model := &counting{Model: client, record: record}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	var r result
	if sh.json {
		resp, err := model.Chat(ctx, llm.Request{Role: llm.RolePlanner, JSON: true, Messages: []llm.Message{
			{Role: llm.System, Content: "Answer with one JSON object."}, {Role: llm.User, Content: "Plan the fix."}}})
		r.err = err
		if err == nil {
			r.outcome = "json reply, finish " + resp.FinishReason
		}
	} else {
		r = runAgent(ctx, model, sh)
	}
	r.requests, r.accepted, r.refusal = rec.requests, rec.accepted, rec.refusal
	r.parsed, r.refused = model.calls, model.refused
	return r
}

func runAgent(ctx context.Context, model llm.Model, sh shape) result {
	var r result
	files := map[string]string{"main.go": "package main\n\nfunc main() {}\n"}
	read := llm.NewTool("read_file", "Read a file of the repository.",
		func(_ context.Context, p struct {
			Path string `json:"path" desc:"repository-relative path"`
		}) (llm.ToolResult, error) {
			r.ran++
			if text, ok := files[p.Path]; ok {
				return llm.ToolResult{Content: text}, nil
			}
			return llm.ErrorResult("no file %q; the repository has main.go", p.Path), nil
		})
	list := llm.NewTool("list_dir", "List a directory of the repository.",
		func(_ context.Context, p struct {
			Path string `json:"path" desc:"repository-relative directory"`
		}) (llm.ToolResult, error) {
			r.ran++
			return llm.ToolResult{Content: "main.go\ngo.mod"}, nil
		})
	protocol := llm.ProtocolTools
	if sh.text {
		protocol = llm.ProtocolText
	}
	agent := &llm.Agent{
		Role: llm.RoleExplorer, Model: model, Tools: []llm.Tool{read, list}, Protocol: protocol,
		Budget:   llm.Budget{MaxSteps: 4, MaxWall: 2 * time.Minute},
		Reminder: "Call a tool, or answer with the spec.",
		Hooks:    hooks(sh),
	}
	out, err := agent.Run(ctx, []llm.Message{
		{Role: llm.System, Content: "You explore a Go repository and write a spec for the issue."},
		{Role: llm.User, Content: "Issue: main.go does nothing. Find where to add a greeting."},
	})
	var failure *llm.ModelFailure
	switch {
	case errors.As(err, &failure):
		r.outcome = "model failure: " + string(out.Reason)
	case err != nil:
		r.err = err
	case out.Reason == llm.StopModelError || out.Reason == llm.StopContextWindow:
		r.err = fmt.Errorf("%s: %v", out.Reason, out.Err)
	default:
		r.outcome = string(out.Reason)
	}
	return r
}

// hooks play what the explorer does between calls: an observer's note
// after the first step, a side question after the second, and from the
// third on a compressed history (older turns folded into the task).
func hooks(sh shape) llm.Hooks {
	return llm.Hooks{
		AfterStep: func(ctx context.Context, s *llm.State) error {
			switch {
			case s.Step == 1:
				s.Messages = llm.WithNote(s.Messages, "Observer: look at main.go first.")
			case s.Step == 2 && sh.aside:
				if _, err := s.Aside(ctx, "Which files matter so far? Answer in one line."); err != nil {
					var failure *llm.ModelFailure
					if !errors.As(err, &failure) {
						return err
					}
				}
			}
			return nil
		},
		BeforeCall: func(_ context.Context, s *llm.State) error {
			if !sh.compress || s.Step < 3 {
				return nil
			}
			last := -1
			for i := len(s.Messages) - 1; i >= 2; i-- {
				if s.Messages[i].Role == llm.Assistant {
					last = i
					break
				}
			}
			if last <= 2 {
				return nil
			}
			out := append([]llm.Message(nil), s.Messages[:2]...)
			out[1].Content += "\n\nRecord of earlier steps: main.go read (package main, empty main)."
			s.Messages = append(out, s.Messages[last:]...)
			return nil
		},
	}
}

// requireEveryShape fails unless the recorded requests hold every shape
// the agents send: tool results, reasoning sent back, an observer's note, a
// side question, a compressed history, the text protocol and a JSON reply.
func requireEveryShape(t *testing.T, reqs []llm.Request) {
	t.Helper()
	seen := map[string]bool{}
	for _, req := range reqs {
		if req.JSON {
			seen["json"] = true
		}
		if len(req.Tools) == 0 && !req.JSON {
			seen["text protocol"] = true
		}
		for _, m := range req.Messages {
			switch {
			case m.Role == llm.ToolRole:
				seen["tool result"] = true
			case m.Role == llm.Assistant && m.Reasoning != "":
				seen["reasoning"] = true
			}
			for what, mark := range map[string]string{"observer note": "Observer:", "side question": "Which files matter",
				"compressed history": "Record of earlier steps"} {
				if strings.Contains(m.Content, mark) {
					seen[what] = true
				}
			}
		}
	}
	for _, want := range []string{"tool result", "reasoning", "observer note", "side question", "compressed history",
		"text protocol", "json"} {
		if !seen[want] {
			t.Errorf("no request recorded with %s", want)
		}
	}
}

// gist is the Jinja exception a refusal names, or its status, with the
// body kept for the client to read.
func gist(resp *http.Response) string {
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	text := string(body)
	if i := strings.Index(text, "Jinja Exception: "); i >= 0 {
		text = text[i+len("Jinja Exception: "):]
		if j := strings.IndexAny(text, "\"\\"); j >= 0 {
			text = text[:j]
		}
		return fmt.Sprintf("%d %q", resp.StatusCode, text)
	}
	return resp.Status
}
