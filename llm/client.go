package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Client is the Model over any OpenAI-compatible chat completions endpoint,
// built on go-openai. It streams by default, retries transient failures and
// is safe for concurrent use.
type Client struct {
	cfg   Config
	base  string // BaseURL with any user:password hidden, for errors
	retry RetryConfig
	api   *openai.Client
	log   *slog.Logger
	// tokens estimates usage for servers that do not report it; it
	// remembers the tool list and the conversation, counted every call.
	tokens *TokenCounter
	sleep  func(context.Context, time.Duration) error
	now    func() time.Time
	// noStream flips to true once the server answered a streaming request
	// with a plain JSON body; later calls skip the stream attempt.
	noStream atomic.Bool
	// noStreamUsage flips to true once the server rejected stream_options.
	noStreamUsage atomic.Bool
	// noJSONMode flips to true once the server rejected response_format;
	// JSON is then asked for in the prompt only (ChatJSON validates).
	noJSONMode atomic.Bool
	// reasoning maps a model name to whether its history carries
	// reasoning_content, once its server said so in a 400.
	reasoning sync.Map
	// singleCalls holds the models whose chat template takes one call per
	// assistant message (client_calls.go), once their server said so.
	singleCalls sync.Map
	// toolsAsText holds the models whose chat template knows no tool role
	// (client_calls.go), once their server said so.
	toolsAsText sync.Map
	// caps holds the max_tokens each model's server named when it refused
	// a default cap (caps.go; 0: none named).
	caps sync.Map
	// http makes the requests go-openai does not (window.go);
	// windows remembers each model's context window once read.
	http    *http.Client
	windows windows
	// prompts holds each role's first request size (ExpectPrompt).
	prompts sync.Map
}

// NewClient validates cfg and returns a Client. It does not contact the
// server; the first Chat reports an unreachable endpoint.
func NewClient(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// Own copies: the caller may reuse or change its maps later.
	cfg.Roles = maps.Clone(cfg.Roles)
	cfg.Prices = maps.Clone(cfg.Prices)
	cfg.Protocols = maps.Clone(cfg.Protocols)
	cfg.SendReasoning = maps.Clone(cfg.SendReasoning)
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Minute
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	// A copy, so the caller's client is not modified.
	wrapped := *hc
	wrapped.Transport = &hintTransport{base: base}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	oc.HTTPClient = &wrapped
	// Servers send keep-alive comments while a model thinks; go-openai
	// gives up after this many non-data lines in a row (default 300).
	oc.EmptyMessagesLimit = 5000
	u, _ := url.Parse(cfg.BaseURL) // Validate parsed it already
	c := &Client{cfg: cfg, base: u.Redacted(), retry: cfg.Retry.withDefaults(), api: openai.NewClientWithConfig(oc), tokens: NewTokenCounter(), sleep: cfg.Sleep, now: cfg.Now}
	if c.log = cfg.Logger; c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.sleep == nil {
		c.sleep = sleepCtx
	}
	if c.now == nil {
		c.now = time.Now
	}
	c.http = &wrapped
	c.noStream.Store(cfg.NoStream)
	c.noStreamUsage.Store(cfg.NoStreamUsage)
	return c, nil
}

// Protocol returns the action protocol configured for role's model. An
// Agent with an empty Protocol asks its Model through this method.
func (c *Client) Protocol(role Role) Protocol {
	r, err := c.cfg.resolve(role)
	if err != nil {
		return ProtocolTools
	}
	return r.protocol
}

// ModelName returns the model that serves role, or "" when none is set.
func (c *Client) ModelName(role Role) string {
	r, _ := c.cfg.resolve(role)
	return r.model
}

// Chat sends req to the model of req.Role and returns the assembled reply.
// Transient failures are retried (see RetryConfig); the error of a call
// that cannot succeed names the setting to fix where one is at fault.
// Response.Cost is filled from the configured prices.
func (c *Client) Chat(ctx context.Context, req Request) (*Response, error) {
	r, err := c.cfg.resolve(req.Role)
	if err != nil {
		return nil, err
	}
	w := c.window(ctx, r.model)
	prompt := c.tokens.Messages(req.Messages) + c.countSpecs(req.Tools)
	if err := c.tooLong(r, prompt, w); err != nil {
		return nil, err
	}
	charge, err := c.admit(ctx, r, req)
	if err != nil {
		return nil, err
	}
	byDefault := c.withDefaultCap(&req, r, w, prompt)
	start := time.Now()
	resp, err := c.withRetry(ctx, req.Role, func(actx context.Context) (*Response, error) {
		resp, err := c.attempt(actx, r, req)
		if err != nil && byDefault && (capRefused(err) || maxTokensTooLarge(err)) {
			// The cap was the bot's default: learn the server's and ask again.
			n := statedCap(err)
			c.caps.Store(r.model, n)
			if n >= req.MaxTokens {
				n = 0
			}
			req.MaxTokens, byDefault = n, false
			resp, err = c.attempt(actx, r, req)
		}
		return resp, err
	})
	if err != nil {
		charge(context.WithoutCancel(ctx), Spent{})
		err = c.explain(r, req.Role, err)
		c.log.DebugContext(ctx, "model call failed", "role", req.Role, "model", r.model, "error", err)
		return nil, err
	}
	if err := c.fillUsage(resp, r, req, w); err != nil {
		charge(context.WithoutCancel(ctx), Spent{Usage: resp.Usage, Cost: r.price.Cost(resp.Usage)})
		c.log.DebugContext(ctx, "model call truncated", "role", req.Role, "model", r.model, "error", err)
		return nil, err
	}
	charge(context.WithoutCancel(ctx), Spent{Usage: resp.Usage, Cost: resp.Cost, Estimated: resp.UsageEstimated})
	c.log.DebugContext(ctx, "model call", "role", req.Role, "model", r.model,
		"prompt_tokens", resp.Usage.PromptTokens, "completion_tokens", resp.Usage.CompletionTokens,
		"cached_tokens", resp.Usage.CachedTokens, "finish", resp.FinishReason, "duration", time.Since(start))
	return resp, nil
}

// countSpecs estimates the prompt tokens the tool list takes.
func (c *Client) countSpecs(specs []ToolSpec) int {
	n := 0
	for _, s := range specs {
		n += c.tokens.Text(s.Name) + c.tokens.Text(s.Description) + c.tokens.Text(string(s.Parameters))
	}
	return n
}

// Check makes one minimal call (a reply of a few tokens) with role's model, to
// report a wrong base URL, key or model name at start-up rather than at the
// first issue.
func (c *Client) Check(ctx context.Context, role Role) error {
	_, err := c.Chat(ctx, Request{Role: role, MaxTokens: 8, Messages: []Message{{Role: User, Content: "Reply with OK."}}})
	return err
}

// attempt runs one HTTP exchange, dropping response_format when the server
// rejects it and switching reasoning_content in the history on (or off)
// when the server's 400 asks for it.
func (c *Client) attempt(ctx context.Context, r resolved, req Request) (*Response, error) {
	oreq, patches := c.buildRequest(r, req)
	if h, _ := ctx.Value(hintKey{}).(*hint); h != nil {
		h.patches, h.cacheMarks = patches, r.cacheMarks
	}
	if c.noJSONMode.Load() {
		oreq.ResponseFormat = nil
	}
	resp, err := c.exchange(ctx, oreq)
	if err != nil && oreq.ResponseFormat != nil && rejects(err, "response_format") {
		c.noJSONMode.Store(true)
		oreq.ResponseFormat = nil
		resp, err = c.exchange(ctx, oreq)
	}
	if err != nil && rejects(err, "reasoning_content") && hasReasoning(req.Messages) {
		// DeepSeek's and Kimi's thinking modes need it back ("The
		// reasoning_content in the thinking mode must be passed back to
		// the API"); deepseek-reasoner refuses it. Learn which, per model.
		c.reasoning.Store(r.model, !c.sendsReasoning(r.model))
		oreq.Messages, _ = toOpenAIMessages(c.history(r.model, req.Messages), c.sendsReasoning(r.model))
		resp, err = c.exchange(ctx, oreq)
	}
	learnt := false
	switch {
	case err == nil:
	case singleCallsOnly(err) && hasParallelCalls(req.Messages) && !c.sendsSingleCalls(r.model):
		c.singleCalls.Store(r.model, true)
		learnt = true
	case rolesMustAlternate(err) && hasToolTurns(req.Messages) && !c.sendsToolsAsText(r.model):
		c.toolsAsText.Store(r.model, true)
		learnt = true
	}
	if learnt {
		oreq, patches = c.buildRequest(r, req)
		if h, _ := ctx.Value(hintKey{}).(*hint); h != nil {
			h.patches = patches
		}
		if c.noJSONMode.Load() {
			oreq.ResponseFormat = nil
		}
		resp, err = c.exchange(ctx, oreq)
	}
	return resp, err
}

// history is ms in the shape model's chat template takes, as learnt from
// its refusals (client_calls.go).
func (c *Client) history(model string, ms []Message) []Message {
	if c.sendsToolsAsText(model) {
		return toolTurnsAsText(ms)
	}
	if c.sendsSingleCalls(model) {
		return splitCalls(ms)
	}
	return ms
}

// sendsReasoning says whether model gets its reasoning back in the
// history: learnt from its 400, else Config.SendReasoning.
func (c *Client) sendsReasoning(model string) bool {
	if v, ok := c.reasoning.Load(model); ok {
		return v.(bool)
	}
	return c.cfg.SendReasoning[model]
}

func hasReasoning(ms []Message) bool {
	for _, m := range ms {
		if m.Role == Assistant && m.Reasoning != "" {
			return true
		}
	}
	return false
}

// exchange runs one HTTP exchange, streaming unless the server does not.
func (c *Client) exchange(ctx context.Context, oreq openai.ChatCompletionRequest) (*Response, error) {
	if !c.noStream.Load() {
		resp, err := c.stream(ctx, oreq)
		if !errors.Is(err, errNotStreamed) {
			return resp, err
		}
		c.noStream.Store(true)
	}
	oreq.Stream = false
	oreq.StreamOptions = nil
	h, _ := ctx.Value(hintKey{}).(*hint)
	if h != nil {
		h.body = &bytes.Buffer{} // the transport keeps the raw body for what go-openai drops
	}
	out, err := c.api.CreateChatCompletion(ctx, oreq)
	if err != nil {
		return nil, err
	}
	resp, err := fromCompletion(out)
	if err == nil && h != nil {
		addRawMessage(resp, h.body.Bytes())
	}
	return resp, err
}

func (c *Client) buildRequest(r resolved, req Request) (openai.ChatCompletionRequest, []extraPatch) {
	msgs, patches := toOpenAIMessages(c.history(r.model, req.Messages), c.sendsReasoning(r.model))
	oreq := openai.ChatCompletionRequest{
		Model:       r.model,
		Messages:    msgs,
		Temperature: r.temperature,
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = r.maxTokens
	}
	if reasoningModel(r.model) {
		// o-series and gpt-5 reject max_tokens and custom temperature.
		oreq.MaxCompletionTokens = maxTokens
		oreq.Temperature = 0
	} else {
		oreq.MaxTokens = maxTokens //nolint:staticcheck // max_tokens is what vLLM, llama.cpp, Ollama and most OpenAI-compatible servers read; only OpenAI's reasoning models need max_completion_tokens (above)
	}
	for _, t := range req.Tools {
		oreq.Tools = append(oreq.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters,
		}})
	}
	if req.JSON {
		oreq.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	return oreq, patches
}

func reasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if model == p || strings.HasPrefix(model, p+"-") {
			return true
		}
	}
	return false
}

func fromCompletion(out openai.ChatCompletionResponse) (*Response, error) {
	if len(out.Choices) == 0 {
		return nil, fmt.Errorf("%w: reply has no choices", ErrMalformedReply)
	}
	ch := out.Choices[0]
	msg := Message{Role: Assistant, Content: ch.Message.Content, Reasoning: ch.Message.ReasoningContent}
	msg.Content, msg.Reasoning = splitThink(msg.Content, msg.Reasoning)
	var calls []ToolCall
	for _, tc := range ch.Message.ToolCalls {
		calls = append(calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	msg.ToolCalls = normalizeCalls(calls)
	resp := &Response{Message: msg, FinishReason: string(ch.FinishReason), Usage: fromUsage(&out.Usage), Refusal: ch.Message.Refusal}
	resp.total = totalOnly(&out.Usage)
	return resp, nil
}

// totalOnly returns total_tokens when the server reported nothing else.
func totalOnly(u *openai.Usage) int {
	if u == nil || u.PromptTokens != 0 || u.CompletionTokens != 0 {
		return 0
	}
	return u.TotalTokens
}

func fromUsage(u *openai.Usage) Usage {
	if u == nil {
		return Usage{}
	}
	out := Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	if u.PromptTokensDetails != nil {
		out.CachedTokens = u.PromptTokensDetails.CachedTokens
	}
	return out
}
