package llm

import (
	"context"
	"net/http"
	"net/url"
)

// lmStudio reads LM Studio's GET /api/v0/models/{model}: the window the
// loaded model runs with (loaded_context_length), else only what it was
// trained for (max_context_length) with the window left unknown. LM Studio
// loads a model on its first request with its default context length
// (4096 unless set), and past it, by its default context overflow policy,
// drops the oldest messages without an error: the window must be read, and
// read again once the model is loaded.
func (c *Client) lmStudio(ctx context.Context, root, model string) (Window, bool) {
	var m struct {
		ID     string `json:"id"`
		State  string `json:"state"`
		Max    int    `json:"max_context_length"`
		Loaded int    `json:"loaded_context_length"`
	}
	if c.getJSON(ctx, http.MethodGet, root+"/api/v0/models/"+url.PathEscape(model), nil, &m) != nil || m.Max == 0 && m.Loaded == 0 {
		return Window{}, false
	}
	w := Window{Server: "LM Studio", Trained: m.Max}
	if m.Loaded > 0 {
		w.Tokens, w.Source = m.Loaded, "loaded_context_length"
	}
	return w, true
}
