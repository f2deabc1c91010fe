package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Window is a model's context window as its server states it: what one
// request (prompt and completion together) may hold. Tokens is 0 when the
// server did not say (hosted APIs, an Ollama model neither configured with
// num_ctx nor loaded, an LM Studio model not loaded yet).
type Window struct {
	Tokens int
	// Server is who said it: "Ollama", "llama.cpp", "vLLM" or "LM Studio"
	// ("" when nobody did); Ollama and LM Studio also when they said only
	// the trained length.
	Server string
	// Source is the field read ("num_ctx", "context_length of the loaded
	// model", "n_ctx", "max_model_len", "loaded_context_length").
	Source string
	// Trained is the model's trained context length (Ollama's model_info
	// "<arch>.context_length", LM Studio's max_context_length), when the
	// server said it.
	Trained int
}

// Known says whether the server stated the window.
func (w Window) Known() bool { return w.Tokens > 0 }

// Setting names what changes the window on w's server, with an example.
func (w Window) Setting() string { return windowSetting(w.Server) }

func windowSetting(server string) string {
	switch server {
	case "Ollama":
		return "Ollama's num_ctx (OLLAMA_CONTEXT_LENGTH=32768 when starting ollama serve, or PARAMETER num_ctx 32768 in a Modelfile)"
	case "llama.cpp":
		return "llama.cpp's --ctx-size (e.g. --ctx-size 32768)"
	case "vLLM":
		return "vLLM's --max-model-len (e.g. --max-model-len 32768)"
	case "LM Studio":
		return "the model's context length in LM Studio (load it with a larger Context Length, e.g. lms load MODEL --context-length 32768)"
	}
	return "the server's context size (Ollama num_ctx, e.g. OLLAMA_CONTEXT_LENGTH=32768; llama.cpp --ctx-size; vLLM --max-model-len)"
}

// String says the window in words: "4096 tokens (Ollama num_ctx)".
func (w Window) String() string {
	if !w.Known() {
		if w.Trained > 0 {
			return fmt.Sprintf("not stated (%s's default; the model was trained for %d tokens)", w.Server, w.Trained)
		}
		return "not stated by the server"
	}
	return fmt.Sprintf("%d tokens (%s %s)", w.Tokens, w.Server, w.Source)
}

// windows remembers each model's window once read.
type windows struct {
	mu    sync.Mutex
	m     map[string]Window
	asked map[string]int // an Ollama model's /api/ps asks that named no window
}

// again says whether an Ollama model's loaded window may be asked once more
// (a few times: an Ollama older than the field never says).
func (ws *windows) again(model string) bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.asked == nil {
		ws.asked = map[string]int{}
	}
	ws.asked[model]++
	return ws.asked[model] <= 3
}

func (ws *windows) get(model string) (Window, bool) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w, ok := ws.m[model]
	return w, ok
}

func (ws *windows) set(model string, w Window) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.m == nil {
		ws.m = map[string]Window{}
	}
	ws.m[model] = w
}

// ContextWindow returns role's model's context window as its server states
// it, asked once per model and remembered (an Ollama model whose window was
// not stated is asked again in /api/ps until its server loaded it). It
// asks, in turn: vLLM's GET /v1/models (max_model_len), Ollama's POST
// /api/show (parameters num_ctx, model_info "<arch>.context_length") and
// GET /api/ps (context_length), and llama.cpp's GET /props
// (default_generation_settings.n_ctx), and LM Studio's GET
// /api/v0/models/{model} (loaded_context_length; asked again until the
// model is loaded). A server that answers none of them has an unknown
// window (Tokens 0); it never fails.
func (c *Client) ContextWindow(ctx context.Context, role Role) Window {
	r, err := c.cfg.resolve(role)
	if err != nil {
		return Window{}
	}
	return c.window(ctx, r.model)
}

func (c *Client) window(ctx context.Context, model string) Window {
	w, ok := c.windows.get(model)
	switch {
	case !ok:
		w = c.readWindow(ctx, model)
	case !w.Known() && w.Server == "Ollama" && c.windows.again(model):
		if n := c.ollamaLoaded(ctx, model); n > 0 {
			w.Tokens, w.Source = n, "context_length of the loaded model"
		}
	case !w.Known() && w.Server == "LM Studio" && c.windows.again(model):
		root, _ := strings.CutSuffix(strings.TrimRight(c.cfg.BaseURL, "/"), "/v1")
		if lw, ok := c.lmStudio(ctx, root, model); ok {
			w = lw
		}
	default:
		return w
	}
	c.windows.set(model, w)
	return w
}

// readWindow asks the servers' own endpoints; each answer's shape is
// copied from that server's documentation (see llmtest's engines.go).
func (c *Client) readWindow(ctx context.Context, model string) Window {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	base := strings.TrimRight(c.cfg.BaseURL, "/")
	// vLLM: GET /v1/models lists each served model with max_model_len.
	var list struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
	}
	if c.getJSON(ctx, http.MethodGet, base+"/models", nil, &list) == nil {
		for _, m := range list.Data {
			if m.ID == model && m.MaxModelLen > 0 {
				return Window{Tokens: m.MaxModelLen, Server: "vLLM", Source: "max_model_len"}
			}
		}
	}
	root, ok := strings.CutSuffix(base, "/v1")
	if !ok {
		return Window{} // Ollama and llama.cpp serve the OpenAI API under /v1
	}
	if w, ok := c.ollamaShow(ctx, root, model); ok {
		return w
	}
	// llama.cpp: GET /props; n_ctx is one slot's context (--ctx-size
	// divided by --parallel), what one request may use.
	var props struct {
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if c.getJSON(ctx, http.MethodGet, root+"/props", nil, &props) == nil && props.Settings.NCtx > 0 {
		return Window{Tokens: props.Settings.NCtx, Server: "llama.cpp", Source: "n_ctx"}
	}
	if w, ok := c.lmStudio(ctx, root, model); ok {
		return w
	}
	return Window{}
}

// ollamaShow reads POST /api/show: num_ctx from the model's parameters
// (set by its Modelfile), else the trained length from model_info, with
// the window itself left to /api/ps (the server's default depends on its
// VRAM and OLLAMA_CONTEXT_LENGTH, which /api/show does not say).
func (c *Client) ollamaShow(ctx context.Context, root, model string) (Window, bool) {
	var show struct {
		Parameters string                     `json:"parameters"`
		ModelInfo  map[string]json.RawMessage `json:"model_info"`
	}
	body, _ := json.Marshal(map[string]string{"model": model})
	if c.getJSON(ctx, http.MethodPost, root+"/api/show", body, &show) != nil || (show.ModelInfo == nil && show.Parameters == "") {
		return Window{}, false
	}
	w := Window{Server: "Ollama"}
	var arch string
	_ = json.Unmarshal(show.ModelInfo["general.architecture"], &arch)
	_ = json.Unmarshal(show.ModelInfo[arch+".context_length"], &w.Trained)
	for _, line := range strings.Split(show.Parameters, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				w.Tokens, w.Source = n, "num_ctx"
			}
		}
	}
	if !w.Known() {
		if n := c.ollamaLoaded(ctx, model); n > 0 {
			w.Tokens, w.Source = n, "context_length of the loaded model"
		}
	}
	return w, true
}

// ollamaLoaded reads GET /api/ps: the context length a loaded model runs
// with (0 when it is not loaded or the server is older than the field).
func (c *Client) ollamaLoaded(ctx context.Context, model string) int {
	root, ok := strings.CutSuffix(strings.TrimRight(c.cfg.BaseURL, "/"), "/v1")
	if !ok {
		return 0
	}
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			Model         string `json:"model"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if c.getJSON(ctx, http.MethodGet, root+"/api/ps", nil, &ps) != nil {
		return 0
	}
	for _, m := range ps.Models {
		if m.Name == model || m.Model == model || m.Name == model+":latest" {
			return m.ContextLength
		}
	}
	return 0
}

// getJSON makes one request with the client's key and transport and
// decodes a 200 answer into out; any other answer is an error.
func (c *Client) getJSON(ctx context.Context, method, url string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", method, url, resp.Status)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(out)
}
