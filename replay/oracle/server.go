package oracle

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/issuesmith/issuesmith/llm"
)

// Server is the oracle's OpenAI-compatible endpoint on loopback: POST
// /v1/chat/completions and GET /v1/models, whole JSON replies (no stream).
type Server struct {
	srv  *http.Server
	url  string
	task *Task

	mu      sync.Mutex
	answers []string
	faults  *faulter // nil without Task.Faults
	stats   Stats
	cache   llm.PrefixCache // cached_tokens as a prefix cache would serve them
}

// Task is what the oracle knows of one instance.
type Task struct {
	// Issue is the problem statement (its first line becomes the spec's
	// topic).
	Issue string
	// Fixes are the gold patch's files (Fixes).
	Fixes []Fix
	// Faults, with a positive Rate, makes the oracle misbehave (Faults).
	Faults Faults
}

// Start serves t on a loopback port until Close.
func Start(t *Task) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("oracle: listen: %w", err)
	}
	s := &Server{task: t, url: "http://" + l.Addr().String() + "/v1"}
	if t.Faults.Rate > 0 {
		s.faults = newFaulter(t.Faults, t.Issue)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("GET /v1/models", s.models)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(l) }()
	return s, nil
}

// URL is the API root to give the llm client (…/v1).
func (s *Server) URL() string { return s.url }

// Close stops the server.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}

// Model is the model name the oracle answers to (any name is answered;
// this one is listed).
const Model = "oracle"

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model"}]}`, Model)
}

// request is the part of a chat-completions request the oracle reads.
type request struct {
	Role     llm.Role
	Messages []llm.Message
	Tools    []string
	// ToolsText is the tool definitions as a provider bills them: sent
	// with every call ahead of the messages, so part of the cached prefix.
	ToolsText string
}

func (s *Server) chat(w http.ResponseWriter, hr *http.Request) {
	req, err := decode(hr)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ans, err := s.task.answer(req)
	if err != nil {
		writeError(w, http.StatusBadRequest, "oracle: "+err.Error())
		return
	}
	s.mu.Lock()
	ans, kind := s.faults.apply(req.Role, ans)
	desc := describe(req.Role, ans)
	if kind != "" {
		desc = "[fault " + kind + "] " + desc
	}
	s.answers = append(s.answers, desc)
	in, out := tokens(req, ans)
	cached := s.cache.Cached("\x00tools\x00"+req.ToolsText+llm.PromptText(req.Messages), in)
	s.count(kind, ans, in, out)
	s.stats.PromptTokens += in
	s.stats.CachedTokens += cached
	s.stats.CompletionTokens += out
	s.mu.Unlock()
	writeAnswer(w, ans, in, out, cached)
}

// count adds one call to the stats: a wasted call when the fault (or the
// turn a fault forced) made the answer unusable.
func (s *Server) count(kind string, a answer, in, out int) {
	s.stats.Calls++
	s.stats.Tokens += in + out
	switch {
	case a.forced:
		s.stats.ExtraCalls++
		s.stats.ExtraTokens += in + out
		kind = FaultForcedCheck
	case kind == "":
		return
	case harmless[kind]:
		s.stats.ExtraTokens += llm.CountText(a.Reasoning) + llm.CountText(a.Content) - llm.CountText(answerText(a.Content))
	default:
		s.stats.ExtraCalls++
		s.stats.ExtraTokens += in + out
	}
	if s.stats.Kinds == nil {
		s.stats.Kinds = map[string]int{}
	}
	s.stats.Kinds[kind]++
}

// Stats is what the oracle's calls cost and what its faults cost of that.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Kinds = make(map[string]int, len(s.stats.Kinds))
	for k, v := range s.stats.Kinds {
		st.Kinds[k] = v
	}
	return st
}

// tokens counts a call's prompt and completion as the usage it reports:
// the prompt is the tool definitions, the messages' text and the tool
// calls in them, as providers bill them.
func tokens(req request, a answer) (in, out int) {
	var prompt strings.Builder
	prompt.WriteString(req.ToolsText)
	for _, m := range req.Messages {
		prompt.WriteString(m.Content)
		for _, c := range m.ToolCalls {
			prompt.WriteString(c.Name)
			prompt.WriteString(c.Arguments)
		}
	}
	in, out = llm.CountText(prompt.String()), llm.CountText(a.Content)+llm.CountText(a.Reasoning)
	for _, c := range a.Calls {
		out += llm.CountText(c.Arguments)
	}
	return in, out
}

// Answers lists what the oracle answered, in order: "explorer read_file
// {path}", "planner {JSON}", "coder <chat>…" (the first line of a text
// answer, or each tool call with its arguments).
func (s *Server) Answers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.answers...)
}

func describe(role llm.Role, a answer) string {
	if len(a.Calls) > 0 {
		var calls []string
		for _, c := range a.Calls {
			calls = append(calls, c.Name+" "+c.Arguments)
		}
		return string(role) + " " + strings.Join(calls, "; ")
	}
	first, _, _ := strings.Cut(a.Content, "\n")
	return string(role) + " " + first
}

func decode(hr *http.Request) (request, error) {
	body, err := io.ReadAll(io.LimitReader(hr.Body, 64<<20))
	if err != nil {
		return request{}, err
	}
	var wr struct {
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &wr); err != nil {
		return request{}, fmt.Errorf("oracle: not a chat completions request: %v", err)
	}
	req := request{Role: llm.Role(hr.Header.Get(llm.RoleHeader))}
	var tools strings.Builder
	for _, t := range wr.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
		var params bytes.Buffer
		if json.Compact(&params, t.Function.Parameters) != nil {
			params.Reset()
		}
		fmt.Fprintf(&tools, "%s: %s\n%s\n", t.Function.Name, t.Function.Description, params.Bytes())
	}
	req.ToolsText = tools.String()
	for _, m := range wr.Messages {
		msg := llm.Message{Role: m.Role}
		if err := json.Unmarshal(m.Content, &msg.Content); err != nil && len(m.Content) > 0 && string(m.Content) != "null" {
			msg.Content = string(m.Content)
		}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	if len(req.Messages) == 0 {
		return request{}, errors.New("oracle: no messages")
	}
	return req, nil
}

// answer is one reply: text, or tool calls.
type answer struct {
	Content string
	Calls   []llm.ToolCall
	// Reasoning is sent as reasoning_content; Finish overrides the
	// finish_reason (Faults).
	Reasoning, Finish string
	// For Faults: the coder blocks the answer holds and their file, and
	// forced marks a turn a fault made necessary (the "let me check" after
	// a stale block).
	blocks []Block
	path   string
	forced bool
}

func writeAnswer(w http.ResponseWriter, a answer, in, out, cached int) {
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	msg := map[string]any{"role": "assistant", "content": a.Content}
	if a.Reasoning != "" {
		msg["reasoning_content"] = a.Reasoning
	}
	finish := llm.FinishStop
	if len(a.Calls) > 0 {
		var calls []call
		for _, c := range a.Calls {
			cl := call{ID: c.ID, Type: "function"}
			cl.Function.Name, cl.Function.Arguments = c.Name, c.Arguments
			calls = append(calls, cl)
		}
		msg["tool_calls"], finish = calls, llm.FinishToolCalls
	}
	if a.Finish != "" {
		finish = a.Finish
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "oracle", "object": "chat.completion", "created": time.Now().Unix(), "model": Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out,
			"prompt_tokens_details": map[string]int{"cached_tokens": cached}},
	})
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "oracle"}})
}
