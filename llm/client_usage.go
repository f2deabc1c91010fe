package llm

import "fmt"

// fillUsage completes resp's usage and prices it: a server that reported
// none gets a local estimate (so budgets still work), one that reported
// only total_tokens gets it split with a local count of the reply. A
// reported prompt far below the local count at a context-size boundary
// means the server cut the prompt to fit its window without saying so
// (Ollama's num_ctx): that is ErrContextLength, since the model answered a
// prompt it never saw whole.
func (c *Client) fillUsage(resp *Response, r resolved, req Request) error {
	local := c.tokens.Messages(req.Messages) + c.countSpecs(req.Tools)
	switch {
	case resp.total > 0:
		completion := min(c.tokens.Messages([]Message{resp.Message}), resp.total)
		resp.Usage = Usage{PromptTokens: resp.total - completion, CompletionTokens: completion}
	case resp.Usage == (Usage{}):
		resp.Usage = Usage{PromptTokens: local, CompletionTokens: c.tokens.Messages([]Message{resp.Message})}
		resp.UsageEstimated = true
	case silentlyTruncated(resp.Usage.PromptTokens, local):
		return fmt.Errorf("%w: model %q at %s read %d prompt tokens of about %d sent: the server cut the prompt to fit "+
			"a smaller context window without an error (Ollama: raise num_ctx, e.g. OLLAMA_CONTEXT_LENGTH=32768 "+
			"or PARAMETER num_ctx in a Modelfile)", ErrContextLength, r.model, c.base, resp.Usage.PromptTokens, local)
	}
	resp.Model = r.model
	resp.Cost = r.price.Cost(resp.Usage)
	return nil
}

// silentlyTruncated says whether a reported prompt count looks cut to a
// context size: within a few tokens of a power of two from 1024 up (Ollama
// keeps exactly num_ctx tokens, or num_ctx/2+2 of a longer prompt) while
// the prompt counted here is at least half again as long. Reports:
// https://github.com/ollama/ollama/issues/3839,
// https://github.com/ollama/ollama/issues/17427.
func silentlyTruncated(reported, local int) bool {
	if reported < 1000 || local < reported*3/2 {
		return false
	}
	for size := 1024; size <= 1<<21; size *= 2 {
		if reported >= size-8 && reported <= size+8 {
			return true
		}
	}
	return false
}
