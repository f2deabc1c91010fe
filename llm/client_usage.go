package llm

import "fmt"

// fillUsage completes resp's usage and prices it: a server that reported
// none gets a local estimate (so budgets still work), one that reported
// only total_tokens gets it split with a local count of the reply. A
// reported prompt well below the local count (truncated) means the server
// cut the prompt to fit its window without saying so (Ollama's num_ctx):
// that is ErrTruncated, since the model answered a prompt it never saw
// whole.
func (c *Client) fillUsage(resp *Response, r resolved, req Request, w Window) error {
	local := c.tokens.Messages(req.Messages) + c.countSpecs(req.Tools)
	switch {
	case resp.total > 0:
		completion := min(c.tokens.Messages([]Message{resp.Message}), resp.total)
		resp.Usage = Usage{PromptTokens: resp.total - completion, CompletionTokens: completion}
	case resp.Usage == (Usage{}):
		resp.Usage = Usage{PromptTokens: local, CompletionTokens: c.tokens.Messages([]Message{resp.Message})}
		resp.UsageEstimated = true
	case resp.Usage.PromptTokens > 0 && truncated(resp.Usage.PromptTokens+resp.Usage.CachedTokens, local, w):
		return &truncatedErr{model: r.model, base: c.base, reported: resp.Usage.PromptTokens, sent: local, window: w}
	}
	resp.Model = r.model
	resp.Window = w
	resp.Cost = r.price.Cost(resp.Usage)
	return nil
}

// tooLong is the error of a request whose prompt (local tokens, counted
// here) clearly exceeds the window its server stated: it is not sent, as
// the server would refuse it or cut it without a word.
func (c *Client) tooLong(r resolved, local int, w Window) error {
	if !w.Known() || local < w.Tokens+w.Tokens/4 {
		return nil
	}
	return fmt.Errorf("%w: model %q at %s: the prompt of about %d tokens does not fit its context window of %s "+
		"(not sent); raise %s", ErrContextLength, r.model, c.base, local, w, w.Setting())
}
