package llm

import (
	"regexp"
	"strconv"
	"strings"
)

// DefaultMaxTokens is each role's completion cap when neither the request,
// the role (RoleConfig.MaxTokens) nor the configuration (Config.MaxTokens)
// sets one. Without it a server's own default applies, which for
// llama.cpp and Ollama is no cap at all: a model stuck in a loop, or
// thinking without end, writes until the context window is full (with
// tens of thousands of tokens at a local model's speed: the better part of
// an hour). Each default is room for the role's longest honest reply with
// its reasoning (the coder's whole-file edits the most).
var DefaultMaxTokens = map[Role]int{
	RoleExplorer:   16_384,
	RolePlanner:    16_384,
	RoleCoder:      32_768,
	RoleApply:      16_384,
	RoleObserver:   4_096,
	RoleSummarizer: 2_048,
}

// minDefaultCap is the least a default cap is lowered to for a window.
const minDefaultCap = 1_024

// defaultCap is the cap a request sends when none is set: the role's
// default, lowered to what the context window w leaves after a prompt of
// prompt tokens (a server refuses a cap that does not fit, vLLM with a 400,
// and a default must never be the reason a call fails), but never below
// minDefaultCap. 0 when the role has no default.
func defaultCap(role Role, w Window, prompt int) int {
	n := DefaultMaxTokens[role]
	if n == 0 {
		return 0
	}
	if w.Known() {
		room := w.Tokens - prompt - prompt/16 // the local count runs a little under the server's
		n = min(n, max(room, minDefaultCap))
	}
	return n
}

// A hosted API caps each model's reply itself and refuses a larger
// max_tokens (DeepSeek: "the valid range of max_tokens is [1, 8192]";
// OpenAI: "supports at most 16384 completion tokens"). A default cap is
// the bot's choice, never the operator's, so such a refusal is learnt per
// model and the call asked again: with the number the server named, or
// with no cap when it named none. A cap the operator set is sent as set and
// its refusal named (ErrMaxTokens).

// capRefused says whether err is a server's refusal of max_tokens.
func capRefused(err error) bool {
	code, _ := statusOf(err)
	msg := strings.ToLower(err.Error())
	named := false
	for _, s := range []string{"max_tokens", "max_completion_tokens", "max_output_tokens", "max output tokens", "maxoutputtokens"} {
		named = named || strings.Contains(msg, s)
	}
	return (code == 400 || code == 422) && named && !strings.Contains(msg, "context length") && !strings.Contains(msg, "context window")
}

// statedCapPatterns find the largest cap a refusal names.
var statedCapPatterns = []*regexp.Regexp{
	regexp.MustCompile(`at most (\d+)`),
	regexp.MustCompile(`\[\s*1\s*,\s*(\d+)\s*\]`),
	regexp.MustCompile(`(?:<=|less than or equal to|maximum(?: value)? (?:is|of)) ?(\d+)`),
}

// statedCap is the largest max_tokens err names, or 0.
func statedCap(err error) int {
	msg := strings.ToLower(err.Error())
	for _, re := range statedCapPatterns {
		if m := re.FindStringSubmatch(msg); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// learntCap is the cap model's server named when it refused a default
// one (0: none), and whether it refused one.
func (c *Client) learntCap(model string) (int, bool) {
	v, ok := c.caps.Load(model)
	if !ok {
		return 0, false
	}
	return v.(int), true
}

// withDefaultCap sets req's cap to role's default when none is set,
// within what model's server named if it refused one, and says whether it
// did.
func (c *Client) withDefaultCap(req *Request, r resolved, w Window, prompt int) bool {
	if req.MaxTokens != 0 || r.maxTokens != 0 {
		return false
	}
	n := defaultCap(req.Role, w, prompt)
	if learnt, ok := c.learntCap(r.model); ok {
		n = min(n, learnt) // 0: the server's own
	}
	req.MaxTokens = n
	return n > 0
}
