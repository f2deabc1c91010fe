package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ProbeHeader marks the start-up probe's requests (its value is the role
// probed). Real endpoints ignore it; llmtest answers probes itself unless a
// script expects them.
const ProbeHeader = "X-Issuesmith-Probe"

// ProbeResult is what one tiny tool call told about a role's model.
type ProbeResult struct {
	Role     Role
	Model    string
	Protocol Protocol // the configured protocol
	// CallsTools: the model answered with a real tool call.
	CallsTools bool
	// ToolsAsText: the model wrote the call as text (the loop accepts it,
	// but the text protocol suits such a model better).
	ToolsAsText bool
	// Reasoning: the reply carried reasoning (a thinking model).
	Reasoning bool
	// ReasoningBack: the endpoint needs that reasoning in the history
	// (learnt from its 400; the client sends it from now on).
	ReasoningBack bool
	// Cut: the reply was cut at the output limit.
	Cut bool
	// MaxTokens is the completion cap the probe sent: the role's
	// configured one, or its default (DefaultCap; DefaultMaxTokens,
	// lowered to fit a stated window).
	MaxTokens  int
	DefaultCap bool
	// Window is the model's context window as its server stated it, and
	// Prompt the role's first request as ExpectPrompt estimated it (0:
	// not told); a window smaller than Prompt plus the cap is advice.
	Window Window
	Prompt int
	// Advice is the setting to change, or "".
	Advice string
	Err    error
	Took   time.Duration
}

// OK says whether the model works with its configured protocol as is.
func (p ProbeResult) OK() bool { return p.Err == nil && p.Advice == "" }

// String is one plain line for logs, /readyz and the terminal.
func (p ProbeResult) String() string {
	head := fmt.Sprintf("model %q (%s, %s protocol)", p.Model, p.Role, p.Protocol)
	var facts []string
	switch {
	case p.Err != nil && errors.Is(p.Err, ErrNoToolSupport):
		facts = append(facts, "cannot call tools")
	case p.Err != nil:
		return head + ": probe failed: " + p.Err.Error()
	case p.Protocol == ProtocolText:
		facts = append(facts, "answers")
	case p.CallsTools:
		facts = append(facts, "calls tools")
	case p.ToolsAsText:
		facts = append(facts, "writes its tool calls as text")
	case p.Cut:
		facts = append(facts, "was cut off at the output limit before calling the tool")
	default:
		facts = append(facts, "answered without calling the tool")
	}
	if p.Reasoning {
		facts = append(facts, "thinks before answering")
	}
	if p.ReasoningBack {
		facts = append(facts, "needs its reasoning passed back (sent from now on)")
	}
	if p.Window.Known() {
		facts = append(facts, "context window "+p.Window.String())
	}
	line := head + ": " + strings.Join(facts, ", ")
	if p.Advice != "" {
		line += "; " + p.Advice
	}
	return line
}

type probeParams struct {
	Word string `json:"word" desc:"the word to report"`
}

// Probe makes one tiny tool call with role's model (two for a model that
// thinks: the second checks whether its reasoning must come back), with
// the role's configured completion cap, and says plainly how the model and
// its endpoint behave and which setting to change: the protocol, the cap,
// or the server's context window when it is smaller than the role's first
// request (ExpectPrompt). It never fails: an unreachable endpoint is in Err.
func (c *Client) Probe(ctx context.Context, role Role) (p ProbeResult) {
	start := time.Now()
	r, err := c.cfg.resolve(role)
	p = ProbeResult{Role: role, Model: r.model, Protocol: r.protocol, MaxTokens: r.maxTokens}
	if err != nil {
		p.Err = err
		return p
	}
	if p.MaxTokens == 0 {
		p.MaxTokens, p.DefaultCap = DefaultMaxTokens[role], true
	}
	ctx = context.WithValue(ctx, probeKey{}, role)
	defer func() { p.Took = time.Since(start) }()
	defer func() {
		if p.Err == nil || errors.Is(p.Err, ErrNoToolSupport) {
			c.checkWindow(ctx, &p)
		}
	}()
	if r.protocol == ProtocolText {
		_, p.Err = c.Chat(ctx, Request{Role: role, Messages: []Message{{Role: User, Content: "Reply with OK."}}})
		return p
	}
	tool := NewTool("report", "Report a word.", func(context.Context, probeParams) (ToolResult, error) { return ToolResult{}, nil })
	msgs := []Message{{Role: User, Content: `Call the tool "report" with the word "ready". Do not answer in text.`}}
	req := Request{Role: role, Messages: msgs, Tools: []ToolSpec{tool.Spec()}}
	resp, err := c.Chat(ctx, req)
	if err != nil {
		p.Err = err
		if errors.Is(err, ErrNoToolSupport) {
			p.Advice = c.textAdvice(r.model, role)
		}
		return p
	}
	p.Reasoning = resp.Message.Reasoning != ""
	p.Cut = resp.FinishReason == FinishLength
	if p.DefaultCap && resp.Window.Known() {
		p.MaxTokens = defaultCap(role, resp.Window, c.tokens.Messages(msgs)+c.countSpecs(req.Tools))
	}
	calls := resp.Message.ToolCalls
	if len(calls) == 0 {
		calls, _ = parseTextCalls(resp.Message.Content, 0, map[string]Tool{"report": tool})
		p.ToolsAsText = len(calls) > 0
	} else {
		p.CallsTools = calls[0].Name == "report"
	}
	switch {
	case p.ToolsAsText:
		p.Advice = "the bot runs such calls, but the server did not parse them (llama.cpp: start it with --jinja; " +
			"vLLM: --enable-auto-tool-choice --tool-call-parser NAME); or " + c.textAdvice(r.model, role)
	case !p.CallsTools && !p.Cut:
		p.Advice = c.textAdvice(r.model, role)
	case p.Cut:
		p.Advice = c.capAdvice(r, role, p.MaxTokens)
	}
	if p.CallsTools && p.Reasoning {
		msg := resp.Message
		follow := append(msgs, msg, Message{Role: ToolRole, ToolCallID: msg.ToolCalls[0].ID, Name: "report", Content: "reported"})
		before := c.sendsReasoning(r.model)
		if _, err := c.Chat(ctx, Request{Role: role, Messages: follow, Tools: req.Tools}); err != nil {
			p.Err = err
		}
		p.ReasoningBack = !before && c.sendsReasoning(r.model)
	}
	return p
}

// capAdvice is what to change when the probe's reply was cut at the cap
// it sent: the role's cap when one is set, else its default (sent) when the
// server's own did not cut first.
func (c *Client) capAdvice(r resolved, role Role, sent int) string {
	if r.maxTokens > 0 {
		return fmt.Sprintf("raise %s (now %d) or %s (%s:N): a thinking model needs room to think",
			c.cfg.setting("max_tokens"), r.maxTokens, c.cfg.setting("roles."+string(role)+".max_tokens"), role)
	}
	return fmt.Sprintf("no completion cap is set, so the %s's default (%d tokens) was sent and the server's own or that default "+
		"cut the reply: raise the server's (Ollama num_predict, llama.cpp --n-predict) or set %s", role, sent, c.cfg.setting("max_tokens"))
}

// ExpectPrompt tells the probe how many tokens role's first request holds
// (its system prompt, tools and a typical task), to check the model's
// context window against.
func (c *Client) ExpectPrompt(role Role, tokens int) { c.prompts.Store(role, tokens) }

// checkWindow reads the model's window (after the probe's call, so an
// Ollama model is loaded and /api/ps says its window) and advises when the
// role's first request and its completion cap do not fit it.
func (c *Client) checkWindow(ctx context.Context, p *ProbeResult) {
	p.Window = c.ContextWindow(ctx, p.Role)
	if v, ok := c.prompts.Load(p.Role); ok {
		p.Prompt = v.(int)
	}
	reply := p.MaxTokens
	if p.DefaultCap {
		reply = minDefaultCap // a default cap is lowered to the room the window leaves
	}
	var advice string
	switch w := p.Window; {
	case w.Known() && p.Prompt > 0 && p.Prompt+reply > w.Tokens:
		advice = fmt.Sprintf("the context window (%d tokens) cannot hold the %s's first request (about %d tokens) and a %d-token reply: "+
			"raise %s", w.Tokens, p.Role, p.Prompt, reply, w.Setting())
	case !w.Known() && w.Server == "Ollama":
		advice = "Ollama does not say this model's context window, and its default num_ctx (4096 on a machine with less than " +
			"24 GiB of VRAM) cuts longer prompts without an error: set " + w.Setting()
	}
	if advice != "" {
		p.Advice = strings.TrimPrefix(p.Advice+"; "+advice, "; ")
	}
}

func (c *Client) textAdvice(model string, role Role) string {
	return fmt.Sprintf("use the text protocol: set %s (%s=%s) or %s (%s:%s)", c.cfg.setting("protocols."+model), model, ProtocolText,
		c.cfg.setting("roles."+string(role)+".protocol"), role, ProtocolText)
}

type probeKey struct{}

// ProbeAll probes the model of each role once (roles sharing a model and
// protocol share the probe), in role order.
func (c *Client) ProbeAll(ctx context.Context, roles ...Role) []ProbeResult {
	var out []ProbeResult
	seen := map[string]bool{}
	for _, role := range roles {
		r, err := c.cfg.resolve(role)
		key := r.model + "\x00" + string(r.protocol)
		if err == nil && seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, c.Probe(ctx, role))
	}
	return out
}
