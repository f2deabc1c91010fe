package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
)

// The inference servers' own endpoints that state a model's context window,
// answered in each server's documented shape. Without the option that
// plays a server they answer 404, as a hosted API does.

// Ollama plays an Ollama server's context window (WithOllama).
type Ollama struct {
	// Ctx is the window the runner uses, in tokens.
	Ctx int
	// Stated: num_ctx is a parameter of the model (a Modelfile's
	// PARAMETER num_ctx), listed by POST /api/show. Otherwise Ctx is the
	// server's default (OLLAMA_CONTEXT_LENGTH, or by VRAM), which only
	// GET /api/ps says, and only when Loaded.
	Stated bool
	// Loaded: GET /api/ps lists the models asked about in /api/show with
	// their context_length.
	Loaded bool
	// Trained is model_info's "llama.context_length" (0: 131072).
	Trained int
	// Truncate cuts a prompt longer than Ctx as Ollama does, without an
	// error: the oldest messages after the system prompt are dropped until
	// the rest fits (a last message longer than Ctx alone is cut to Ctx),
	// and every reply without a scripted usage reports the prompt tokens
	// kept (llm.CountTokens of what is left, tools included).
	Truncate bool
}

// WithOllama answers POST /api/show and GET /api/ps as Ollama does for
// every model, and with o.Truncate drops messages as Ollama does. Shapes:
// https://github.com/ollama/ollama/blob/main/docs/api.md ("Show Model
// Information": parameters as "name value" lines and model_info with
// "general.architecture" and "<arch>.context_length"; "List Running
// Models": models[] with context_length), and docs/context-length.mdx (the
// default window depends on VRAM; OLLAMA_CONTEXT_LENGTH sets it).
func WithOllama(o Ollama) Option { return func(s *Server) { s.ollama = &o } }

// WithLlamaCpp answers GET /props as llama.cpp's llama-server started with
// --ctx-size nCtx (one slot) does. Shape: tools/server/README.md of
// https://github.com/ggml-org/llama.cpp, "GET /props":
// default_generation_settings.n_ctx, total_slots, chat_template.
func WithLlamaCpp(nCtx int) Option { return func(s *Server) { s.llamaCtx = nCtx } }

// WithVLLM adds max_model_len to every model GET /models lists (and lists
// "test" when WithModels named none), as vLLM started with
// --max-model-len maxLen does. Shape: vLLM's ModelCard
// (vllm/entrypoints/openai/protocol.py: id, object, created, owned_by, root,
// max_model_len, permission) returned by its OpenAI-compatible server.
func WithVLLM(maxLen int) Option {
	return func(s *Server) {
		s.maxModelLen = maxLen
		if s.models == nil {
			s.models = []string{"test"}
		}
	}
}

// engineEndpoint answers the servers' own endpoints outside the OpenAI
// API; it reports whether path was one of them.
func (s *Server) engineEndpoint(w http.ResponseWriter, hr *http.Request) bool {
	root := strings.TrimSuffix(s.prefix, "/v1")
	if s.lmStudioEndpoint(w, hr, root) {
		return true
	}
	switch {
	case hr.Method == http.MethodPost && hr.URL.Path == root+"/api/show" && s.ollama != nil:
		var req struct {
			Model string `json:"model"`
		}
		_ = json.NewDecoder(hr.Body).Decode(&req)
		s.mu.Lock()
		if !contains(s.shown, req.Model) {
			s.shown = append(s.shown, req.Model)
		}
		s.mu.Unlock()
		writeJSON(w, s.ollama.show())
	case hr.Method == http.MethodGet && hr.URL.Path == root+"/api/ps" && s.ollama != nil:
		s.mu.Lock()
		loaded := append([]string(nil), s.shown...)
		s.mu.Unlock()
		writeJSON(w, s.ollama.ps(loaded))
	case hr.Method == http.MethodGet && hr.URL.Path == root+"/props" && s.llamaCtx > 0:
		writeJSON(w, map[string]any{
			"default_generation_settings": map[string]any{"n_ctx": s.llamaCtx, "params": map[string]any{"n_predict": -1}},
			"total_slots":                 1,
			"model_path":                  "models/test.gguf",
			"chat_template":               "{{ messages }}",
		})
	case hr.URL.Path == root+"/api/show", hr.URL.Path == root+"/api/ps", hr.URL.Path == root+"/props":
		http.Error(w, "404 page not found", http.StatusNotFound)
	default:
		return false
	}
	return true
}

func (o *Ollama) show() map[string]any {
	trained := o.Trained
	if trained == 0 {
		trained = 131072
	}
	params := "stop \"<|eot_id|>\"\ntemperature 0.6"
	if o.Stated {
		params = fmt.Sprintf("num_ctx %d\n%s", o.Ctx, params)
	}
	return map[string]any{
		"modelfile":  "FROM test\n",
		"parameters": params,
		"template":   "{{ .Prompt }}",
		"details":    map[string]any{"format": "gguf", "family": "llama", "parameter_size": "8.0B", "quantization_level": "Q4_0"},
		"model_info": map[string]any{"general.architecture": "llama", "llama.context_length": trained,
			"llama.embedding_length": 4096, "general.parameter_count": 8030261248},
		"capabilities": []string{"completion", "tools"},
	}
}

func (o *Ollama) ps(models []string) map[string]any {
	list := []map[string]any{}
	if o.Loaded {
		for _, m := range models {
			list = append(list, map[string]any{"name": m, "model": m, "size": 5137025024, "digest": "2ae6f6dd7a3d",
				"details":    map[string]any{"format": "gguf", "family": "llama"},
				"expires_at": "2099-01-01T00:00:00Z", "size_vram": 5137025024, "context_length": o.Ctx})
		}
	}
	return map[string]any{"models": list}
}

// kept is the prompt Ollama's runner reads of req: the system messages and
// the newest messages that fit Ctx, counted as llm.CountTokens does, with
// the tools' definitions.
func (o *Ollama) kept(req Request) int {
	var wr struct {
		Tools json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(req.Body, &wr)
	tools := 0
	if len(wr.Tools) > 0 && string(wr.Tools) != "null" {
		tools = llm.CountText(string(wr.Tools))
	}
	var sys, rest []llm.Message
	for _, m := range req.Messages {
		if m.Role == llm.System {
			sys = append(sys, m)
		} else {
			rest = append(rest, m)
		}
	}
	for n := 0; n < len(rest); n++ {
		if c := llm.CountTokens(append(append([]llm.Message(nil), sys...), rest[n:]...)) + tools; c <= o.Ctx || !o.Truncate {
			return c
		}
	}
	return o.Ctx
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
