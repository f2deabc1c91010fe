package llm

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
