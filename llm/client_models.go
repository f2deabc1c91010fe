package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	openai "github.com/sashabaranov/go-openai"
)

// ErrModelNotListed reports a model name the server's GET /models does not
// list: every call with it will fail.
var ErrModelNotListed = errors.New("model not listed by the server")

// CheckListed asks the server's GET /models whether role's model is there,
// without spending tokens or a scripted reply. It returns nil when the model
// is listed or the server has no /models endpoint (404, 405: some local
// servers), ErrModelNotListed (wrapped, naming the setting and a few listed
// names) when it is missing, and the server's error otherwise (a refused
// key, an unreachable host).
func (c *Client) CheckListed(ctx context.Context, role Role) error {
	r, err := c.cfg.resolve(role)
	if err != nil {
		return err
	}
	list, err := c.api.ListModels(ctx)
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr) && (apiErr.HTTPStatusCode == http.StatusNotFound || apiErr.HTTPStatusCode == http.StatusMethodNotAllowed),
		errors.As(err, &reqErr) && (reqErr.HTTPStatusCode == http.StatusNotFound || reqErr.HTTPStatusCode == http.StatusMethodNotAllowed):
		return nil
	case err != nil:
		return fmt.Errorf("list models at %s: %w", c.base, hideKey(err, c.cfg.APIKey))
	}
	var names []string
	for _, m := range list.Models {
		names = append(names, m.ID)
	}
	if slices.Contains(names, r.model) {
		return nil
	}
	shown := names[:min(len(names), 8)]
	return fmt.Errorf("%w: %s %q (setting %s) is not among the %d models %s lists, e.g. %v",
		ErrModelNotListed, role, r.model, r.modelKey, len(names), c.base, shown)
}
