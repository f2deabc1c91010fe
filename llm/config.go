package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/internal/redact"
)

// Config is the model access configuration: where the OpenAI-compatible
// endpoint is, which model serves each role and how calls behave. The
// server config fills it once at start-up; a repository may override
// per-role settings with Override. Errors name the setting to check through
// SettingName (config maps them to the ISSUESMITH_MODEL_* variables; without
// it they read llm.base_url, llm.roles.coder.model, ...).
type Config struct {
	// BaseURL is the endpoint's API root, for example
	// https://api.openai.com/v1, https://api.deepseek.com/v1,
	// http://localhost:11434/v1 (Ollama) or
	// https://generativelanguage.googleapis.com/v1beta/openai.
	BaseURL string `json:"base_url" yaml:"base_url"`
	// APIKey is sent as a bearer token. Local servers accept an empty key.
	// It never appears in errors or logs.
	APIKey string `json:"api_key" yaml:"api_key"`
	// Model is the default model for every role without its own.
	Model string `json:"model" yaml:"model"`
	// Roles holds per-role settings; zero fields fall back to the
	// top-level ones.
	Roles map[Role]RoleConfig `json:"roles,omitempty" yaml:"roles,omitempty"`
	// Timeout bounds one HTTP attempt (0: 5 minutes). Retries get a fresh
	// timeout each.
	Timeout time.Duration `json:"timeout,omitempty" yaml:"timeout,omitempty"`
	// Temperature for every role without its own (0: server default).
	Temperature float32 `json:"temperature,omitempty" yaml:"temperature,omitempty"`
	// MaxTokens caps each completion (0: server default).
	MaxTokens int `json:"max_tokens,omitempty" yaml:"max_tokens,omitempty"`
	// Protocol is the default action protocol (empty: tools).
	Protocol Protocol `json:"protocol,omitempty" yaml:"protocol,omitempty"`
	// Protocols selects the protocol per model name, for models without
	// tool calling behind an endpoint that has others with it.
	Protocols map[string]Protocol `json:"protocols,omitempty" yaml:"protocols,omitempty"`
	// SendReasoning names models whose reasoning must come back in the
	// history (DeepSeek's and Kimi's thinking modes with tool calls). The
	// Client also learns it from the provider's own 400, so this only
	// saves that first refused request.
	SendReasoning map[string]bool `json:"send_reasoning,omitempty" yaml:"send_reasoning,omitempty"`
	// Prices per model name, for cost estimates and cost budgets.
	Prices map[string]Price `json:"prices,omitempty" yaml:"prices,omitempty"`
	// NoStream uses plain JSON replies instead of server-sent events.
	// Servers that ignore stream=true are also detected at run time.
	NoStream bool `json:"no_stream,omitempty" yaml:"no_stream,omitempty"`
	// NoStreamUsage leaves out stream_options.include_usage for servers
	// that reject it; usage is then estimated with CountTokens.
	NoStreamUsage bool `json:"no_stream_usage,omitempty" yaml:"no_stream_usage,omitempty"`
	// Retry governs retries of transient failures.
	Retry RetryConfig `json:"retry,omitempty" yaml:"retry,omitempty"`
	// CacheMarks marks each request's stable prefix with Anthropic-style
	// cache_control breakpoints (cache_marks.go), for endpoints that cache
	// only what is marked (Anthropic models through OpenRouter, LiteLLM or
	// Anthropic's OpenAI layer). Providers that cache prefixes by
	// themselves (OpenAI, DeepSeek, vLLM) need none.
	CacheMarks bool `json:"cache_marks,omitempty" yaml:"cache_marks,omitempty"`

	// SettingName maps this package's setting keys (base_url, api_key,
	// model, roles.<role>.model, timeout, retry.max_retry_after, ...) to
	// what the operator sets, such as an environment variable, for error
	// messages. Nil names them llm.<key>.
	SettingName func(key string) string `json:"-" yaml:"-"`
	// Logger receives retries (Warn) and one line per call (Debug: role,
	// model, tokens, duration); never prompts, replies or the key. Nil
	// discards.
	Logger *slog.Logger `json:"-" yaml:"-"`
	// HTTPClient replaces the default HTTP client (tests, proxies).
	HTTPClient *http.Client `json:"-" yaml:"-"`
	// Sleep replaces the wait between retries (tests make it instant).
	// It must return ctx.Err() when ctx ends first.
	Sleep func(ctx context.Context, d time.Duration) error `json:"-" yaml:"-"`
	// Now replaces the clock used to read HTTP-date Retry-After values.
	Now func() time.Time `json:"-" yaml:"-"`
	// Gate, when set, is asked before every call whether its worst case
	// fits the spending limits (gate.go) and told what the call used.
	Gate Gate `json:"-" yaml:"-"`
}

// RoleConfig is the per-role part of Config. Zero fields inherit.
type RoleConfig struct {
	Model string `json:"model,omitempty" yaml:"model,omitempty"`
	// CacheMarks turns Config.CacheMarks on for this role only.
	CacheMarks  bool     `json:"cache_marks,omitempty" yaml:"cache_marks,omitempty"`
	Temperature float32  `json:"temperature,omitempty" yaml:"temperature,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty" yaml:"max_tokens,omitempty"`
	Protocol    Protocol `json:"protocol,omitempty" yaml:"protocol,omitempty"`
}

// Price is the cost of one million tokens of each kind in the configured
// currency. Cached prompt tokens are billed at Cached instead of Prompt when
// Cached is set.
type Price struct {
	Prompt     float64 `json:"prompt" yaml:"prompt"`
	Completion float64 `json:"completion" yaml:"completion"`
	Cached     float64 `json:"cached,omitempty" yaml:"cached,omitempty"`
}

// Cost estimates what u costs at price p.
func (p Price) Cost(u Usage) float64 {
	prompt := float64(u.PromptTokens)
	cost := 0.0
	if p.Cached > 0 && u.CachedTokens > 0 {
		cached := float64(min(u.CachedTokens, u.PromptTokens))
		prompt -= cached
		cost += cached * p.Cached
	}
	cost += prompt*p.Prompt + float64(u.CompletionTokens)*p.Completion
	return cost / 1e6
}

// RetryConfig governs retries of 429, 5xx, connection resets and timeouts.
type RetryConfig struct {
	// MaxAttempts counts the first try (0: 5; 1: no retries).
	MaxAttempts int `json:"max_attempts,omitempty" yaml:"max_attempts,omitempty"`
	// BaseDelay is the first backoff (0: 1s); it doubles per attempt.
	BaseDelay time.Duration `json:"base_delay,omitempty" yaml:"base_delay,omitempty"`
	// MaxDelay caps one backoff (0: 1 minute).
	MaxDelay time.Duration `json:"max_delay,omitempty" yaml:"max_delay,omitempty"`
	// MaxRetryAfter is the longest Retry-After the client waits (0: 2
	// minutes); a longer one fails the call with ErrRateLimited.
	MaxRetryAfter time.Duration `json:"max_retry_after,omitempty" yaml:"max_retry_after,omitempty"`
}

// setting names a setting in messages.
func (c Config) setting(key string) string {
	if c.SettingName != nil {
		if n := c.SettingName(key); n != "" {
			return n
		}
	}
	return "llm." + key
}

// ErrConfig marks a configuration mistake; the message names the setting.
var ErrConfig = errors.New("llm config")

func configErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...)
}

// Validate reports the first setting to fix, naming it by its config key.
func (c Config) Validate() error {
	if strings.TrimSpace(c.BaseURL) == "" {
		return configErr("%s is empty: set it to the endpoint's API root, e.g. https://api.openai.com/v1", c.setting("base_url"))
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return configErr("%s %q is not an http(s) URL", c.setting("base_url"), redact.URL(c.BaseURL))
	}
	if c.Model == "" {
		for _, r := range []Role{RoleExplorer, RoleObserver, RolePlanner, RoleCoder, RoleSummarizer} {
			if c.Roles[r].Model == "" {
				return configErr("no model for role %s: set %s or %s", r, c.setting("model"), c.setting("roles."+string(r)+".model"))
			}
		}
	}
	for r, rc := range c.Roles {
		if err := checkProtocol(rc.Protocol, c.setting("roles."+string(r)+".protocol")); err != nil {
			return err
		}
		if rc.MaxTokens < 0 {
			return configErr("%s is negative", c.setting("roles."+string(r)+".max_tokens"))
		}
	}
	if err := checkProtocol(c.Protocol, c.setting("protocol")); err != nil {
		return err
	}
	for m, p := range c.Protocols {
		if err := checkProtocol(p, c.setting("protocols."+m)); err != nil {
			return err
		}
	}
	for m, p := range c.Prices {
		if p.Prompt < 0 || p.Completion < 0 || p.Cached < 0 {
			return configErr("%s has a negative price", c.setting("prices."+m))
		}
	}
	switch {
	case c.Timeout < 0:
		return configErr("%s is negative", c.setting("timeout"))
	case c.MaxTokens < 0:
		return configErr("%s is negative", c.setting("max_tokens"))
	case c.Temperature < 0 || c.Temperature > 2:
		return configErr("%s %v is outside 0..2", c.setting("temperature"), c.Temperature)
	case c.Retry.MaxAttempts < 0 || c.Retry.BaseDelay < 0 || c.Retry.MaxDelay < 0 || c.Retry.MaxRetryAfter < 0:
		return configErr("%s has a negative value", c.setting("retry"))
	}
	return nil
}

func checkProtocol(p Protocol, key string) error {
	switch p {
	case "", ProtocolTools, ProtocolText:
		return nil
	}
	return configErr("%s %q is not %q or %q", key, p, ProtocolTools, ProtocolText)
}

// Override returns c with the non-zero per-role settings of o applied on
// top (a repository's .github/issuesmith.yml). Endpoint and key stay c's.
func (c Config) Override(o map[Role]RoleConfig) Config {
	roles := make(map[Role]RoleConfig, len(c.Roles)+len(o))
	for r, rc := range c.Roles {
		roles[r] = rc
	}
	for r, ov := range o {
		rc := roles[r]
		if ov.Model != "" {
			rc.Model = ov.Model
		}
		if ov.Temperature != 0 {
			rc.Temperature = ov.Temperature
		}
		if ov.MaxTokens != 0 {
			rc.MaxTokens = ov.MaxTokens
		}
		if ov.Protocol != "" {
			rc.Protocol = ov.Protocol
		}
		roles[r] = rc
	}
	c.Roles = roles
	return c
}

// resolved is the effective setting set for one role.
type resolved struct {
	modelKey    string // the setting the model came from
	model       string
	temperature float32
	maxTokens   int
	protocol    Protocol
	price       Price
	cacheMarks  bool
}

func (c Config) resolve(r Role) (resolved, error) {
	rc := c.Roles[r]
	out := resolved{modelKey: "roles." + string(r) + ".model", model: rc.Model, temperature: rc.Temperature, maxTokens: rc.MaxTokens, protocol: rc.Protocol}
	if out.model == "" && r == RoleApply {
		out.model, out.modelKey = c.Roles[RoleCoder].Model, "roles.coder.model"
	}
	if out.model == "" {
		out.model, out.modelKey = c.Model, "model"
	}
	if out.model == "" {
		return out, configErr("no model for role %q: set %s or %s", r, c.setting("model"), c.setting("roles."+string(r)+".model"))
	}
	if out.temperature == 0 {
		out.temperature = c.Temperature
	}
	if out.maxTokens == 0 {
		out.maxTokens = c.MaxTokens
	}
	if out.protocol == "" {
		out.protocol = c.Protocols[out.model]
	}
	if out.protocol == "" {
		out.protocol = c.Protocol
	}
	if out.protocol == "" {
		out.protocol = ProtocolTools
	}
	out.price = c.Prices[out.model]
	out.cacheMarks = c.CacheMarks || rc.CacheMarks
	return out, nil
}

func (rc RetryConfig) withDefaults() RetryConfig {
	if rc.MaxAttempts == 0 {
		rc.MaxAttempts = 5
	}
	if rc.BaseDelay == 0 {
		rc.BaseDelay = time.Second
	}
	if rc.MaxDelay == 0 {
		rc.MaxDelay = time.Minute
	}
	if rc.MaxRetryAfter == 0 {
		rc.MaxRetryAfter = 2 * time.Minute
	}
	return rc
}
