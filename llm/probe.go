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
// thinks: the second checks whether its reasoning must come back) and says
// plainly how the model and its endpoint behave and which protocol setting
// to use. It never fails: an unreachable endpoint is in Err.
func (c *Client) Probe(ctx context.Context, role Role) ProbeResult {
	start := time.Now()
	r, err := c.cfg.resolve(role)
	p := ProbeResult{Role: role, Model: r.model, Protocol: r.protocol}
	if err != nil {
		p.Err = err
		return p
	}
	ctx = context.WithValue(ctx, probeKey{}, role)
	defer func() { p.Took = time.Since(start) }()
	if r.protocol == ProtocolText {
		_, p.Err = c.Chat(ctx, Request{Role: role, MaxTokens: 512, Messages: []Message{{Role: User, Content: "Reply with OK."}}})
		return p
	}
	tool := NewTool("report", "Report a word.", func(context.Context, probeParams) (ToolResult, error) { return ToolResult{}, nil })
	msgs := []Message{{Role: User, Content: `Call the tool "report" with the word "ready". Do not answer in text.`}}
	req := Request{Role: role, MaxTokens: 1024, Messages: msgs, Tools: []ToolSpec{tool.Spec()}}
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
	calls := resp.Message.ToolCalls
	if len(calls) == 0 {
		calls, _ = parseTextCalls(resp.Message.Content, 0, map[string]Tool{"report": tool})
		p.ToolsAsText = len(calls) > 0
	} else {
		p.CallsTools = calls[0].Name == "report"
	}
	switch {
	case p.ToolsAsText:
		p.Advice = "the bot reads such calls, but " + c.textAdvice(r.model, role) + " is more reliable for this model"
	case !p.CallsTools && !p.Cut:
		p.Advice = c.textAdvice(r.model, role)
	case p.Cut:
		p.Advice = "raise " + c.cfg.setting("max_tokens") + " (a thinking model needs room to think)"
	}
	if p.CallsTools && p.Reasoning {
		msg := resp.Message
		follow := append(msgs, msg, Message{Role: ToolRole, ToolCallID: msg.ToolCalls[0].ID, Name: "report", Content: "reported"})
		before := c.sendsReasoning(r.model)
		if _, err := c.Chat(ctx, Request{Role: role, MaxTokens: 1024, Messages: follow, Tools: req.Tools}); err != nil {
			p.Err = err
		}
		p.ReasoningBack = !before && c.sendsReasoning(r.model)
	}
	return p
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
