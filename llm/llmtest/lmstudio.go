package llmtest

import (
	"net/http"
	"strings"
)

// LMStudio plays LM Studio's window (WithLMStudio).
type LMStudio struct {
	// Max is the model's max_context_length (what it was trained for).
	Max int
	// Loaded is the loaded_context_length the model runs with (LM
	// Studio's default is 4096 unless the model was loaded with another);
	// 0: the model is not loaded and GET /api/v0/models says only Max.
	Loaded int
	// Truncate plays LM Studio's rolling-window context overflow policy:
	// a prompt longer than Loaded is cut without an error, the oldest
	// messages after the system prompt dropped, and prompt_tokens reports
	// what was kept (as Ollama.Truncate does).
	Truncate bool
}

// WithLMStudio answers LM Studio's REST API for the model asked about:
// GET /api/v0/models/{model} (and GET /api/v0/models listing it), in the
// shape LM Studio's documentation gives ("REST API": id, object, type,
// publisher, arch, compatibility_type, quantization, state,
// max_context_length, and loaded_context_length once loaded), and with
// l.Truncate cuts prompts longer than l.Loaded as its rolling window does.
func WithLMStudio(l LMStudio) Option { return func(s *Server) { s.lmstudio = &l } }

// lmStudioEndpoint answers GET /api/v0/models[/{model}]; it reports
// whether path was one.
func (s *Server) lmStudioEndpoint(w http.ResponseWriter, hr *http.Request, root string) bool {
	path, ok := strings.CutPrefix(hr.URL.Path, root+"/api/v0/models")
	if !ok {
		return false
	}
	if s.lmstudio == nil || hr.Method != http.MethodGet {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return true
	}
	model := strings.TrimPrefix(path, "/")
	if model == "" {
		writeJSON(w, map[string]any{"object": "list", "data": []any{s.lmstudio.model("test")}})
		return true
	}
	writeJSON(w, s.lmstudio.model(model))
	return true
}

func (l *LMStudio) model(id string) map[string]any {
	m := map[string]any{"id": id, "object": "model", "type": "llm", "publisher": "lmstudio-community", "arch": "llama",
		"compatibility_type": "gguf", "quantization": "Q4_K_M", "state": "not-loaded", "max_context_length": l.Max}
	if l.Loaded > 0 {
		m["state"], m["loaded_context_length"] = "loaded", l.Loaded
	}
	return m
}
