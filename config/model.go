package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/llm"
)

// Model is the model endpoint configuration: any OpenAI-compatible server.
// Variables are ISSUESMITH_MODEL_<tag>. Settings "per role" take
// "role:value,role:value" (roles: explorer, observer, planner, coder,
// summarizer, apply); settings "per model" take "model=value,model=value" because
// model names may hold a colon ("qwen3:8b"). A per-role value wins over a
// per-model one, which wins over the default.
type Model struct {
	// BaseURL is the OpenAI-compatible API root.
	BaseURL string `env:"BASE_URL" envDefault:"https://api.openai.com/v1"`
	// APIKey or APIKeyFile authenticates to it (a local server may need none).
	APIKey     string `env:"API_KEY"`
	APIKeyFile string `env:"API_KEY_FILE"`
	// Name is the default model for every role.
	Name string `env:"NAME"`
	// Roles overrides the model per role, "explorer:NAME,coder:NAME"
	// (the apply role defaults to the coder's model).
	Roles map[string]string `env:"ROLES"`
	// Timeout bounds one model call.
	Timeout time.Duration `env:"TIMEOUT" envDefault:"5m"`
	// MaxRetries bounds retries of a failed model call.
	MaxRetries int `env:"MAX_RETRIES" envDefault:"3"`
	// MaxRetryAfter is the longest Retry-After wait honoured; a server
	// asking for longer fails the call.
	MaxRetryAfter time.Duration `env:"MAX_RETRY_AFTER" envDefault:"2m"`
	// InputPrice, OutputPrice and CachedPrice are USD per million prompt,
	// completion and cached prompt tokens, for the cost shown in progress
	// comments and cost budgets (0: no cost; CachedPrice 0: cached tokens
	// cost InputPrice). They apply to every model without an entry in
	// Prices.
	InputPrice  float64 `env:"INPUT_PRICE"`
	OutputPrice float64 `env:"OUTPUT_PRICE"`
	CachedPrice float64 `env:"CACHED_PRICE"`
	// Prices sets prices per model, "NAME=IN/OUT[/CACHED],...".
	Prices map[string]string `env:"PRICES" envKeyValSeparator:"="`
	// Protocol is how agents act: "tools" (native tool calls) or "text"
	// (actions written in the reply, for models without tool calling).
	Protocol llm.Protocol `env:"PROTOCOL" envDefault:"tools"`
	// Protocols sets the protocol per model, "NAME=text,...".
	Protocols map[string]llm.Protocol `env:"PROTOCOLS" envKeyValSeparator:"="`
	// RoleProtocols sets the protocol per role, "observer:text,...".
	RoleProtocols map[string]llm.Protocol `env:"ROLE_PROTOCOLS"`
	// Temperature is the sampling temperature, 0..2 (0: the server's
	// default).
	Temperature float32 `env:"TEMPERATURE"`
	// RoleTemperatures sets it per role, "coder:0.2,planner:0.7".
	RoleTemperatures map[string]float32 `env:"ROLE_TEMPERATURES"`
	// MaxCompletionTokens caps each reply's tokens. Unset (0), each role
	// sends its own default (explorer and planner 16384, coder 32768,
	// observer 4096, summarizer 2048; llm.DefaultMaxTokens), lowered to
	// what the context window a server states leaves after the prompt, and
	// to the cap a hosted API names when it refuses a larger one (DeepSeek
	// 8192): llama.cpp's and Ollama's own default is no cap, so a looping
	// model would write until the window is full. Run budgets are set per
	// repository, not here.
	MaxCompletionTokens int `env:"MAX_COMPLETION_TOKENS"`
	// RoleMaxCompletionTokens sets the cap per role, "coder:16000,...".
	RoleMaxCompletionTokens map[string]int `env:"ROLE_MAX_COMPLETION_TOKENS"`
	// NoStream asks for whole JSON replies instead of server-sent events.
	NoStream bool `env:"NO_STREAM"`
	// NoStreamUsage leaves out stream_options.include_usage, for servers
	// that reject it (usage is then counted locally).
	NoStreamUsage bool `env:"NO_STREAM_USAGE"`
	// CacheMarks lists the roles whose requests mark their stable prefix
	// (the system prompt and the two newest messages) with Anthropic-style
	// cache_control breakpoints ("all", or "explorer,coder"), for
	// endpoints that cache only what is marked: Anthropic models through
	// OpenRouter, LiteLLM or Anthropic's OpenAI layer. OpenAI, DeepSeek,
	// vLLM and others cache prefixes by themselves and need none.
	CacheMarks []string `env:"CACHE_MARKS"`
}

// Configured reports whether a model is named at all (ISSUESMITH_MODEL_NAME
// or ISSUESMITH_MODEL_ROLES); local commands run without a model when not.
func (m *Model) Configured() bool { return m.Name != "" || len(m.Roles) > 0 }

// validate checks the model settings, naming each problem by its variable.
// requireName is false for local commands, which may run without a model.
func (m *Model) validate(requireName bool) []error {
	var errs []error
	bad := func(name, why string) { errs = append(errs, fmt.Errorf("%sMODEL_%s: %s", EnvPrefix, name, why)) }
	if u, err := url.Parse(m.BaseURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		bad("BASE_URL", "must be an absolute http(s) URL")
	}
	if requireName && m.Name == "" {
		bad("NAME", "required: the model every role uses by default")
	}
	if m.APIKey != "" && m.APIKeyFile != "" {
		bad("API_KEY", "set either MODEL_API_KEY or MODEL_API_KEY_FILE, not both")
	}
	checkRoles("ROLES", m.Roles, bad)
	if m.Timeout <= 0 {
		bad("TIMEOUT", "must be positive")
	}
	if m.MaxRetries < 0 {
		bad("MAX_RETRIES", "must not be negative")
	}
	if m.MaxRetryAfter <= 0 {
		bad("MAX_RETRY_AFTER", "must be positive")
	}
	for name, p := range map[string]float64{"INPUT_PRICE": m.InputPrice, "OUTPUT_PRICE": m.OutputPrice, "CACHED_PRICE": m.CachedPrice} {
		if p < 0 {
			bad(name, "must not be negative")
		}
	}
	for model, s := range m.Prices {
		if _, err := ParsePrice(s); err != nil {
			bad("PRICES", fmt.Sprintf("model %q: %v", model, err))
		}
	}
	for _, role := range m.CacheMarks {
		if role != "all" && !knownRoles[role] {
			bad("CACHE_MARKS", fmt.Sprintf("unknown role %q (known: all, %s)", role, roleList()))
		}
	}
	checkProtocol("PROTOCOL", "", m.Protocol, bad)
	for model, p := range m.Protocols {
		checkProtocol("PROTOCOLS", "model "+strconv.Quote(model)+": ", p, bad)
	}
	checkRoles("ROLE_PROTOCOLS", m.RoleProtocols, bad)
	for role, p := range m.RoleProtocols {
		checkProtocol("ROLE_PROTOCOLS", "role "+role+": ", p, bad)
	}
	if !validTemperature(float64(m.Temperature)) {
		bad("TEMPERATURE", "must be between 0 and 2")
	}
	checkRoles("ROLE_TEMPERATURES", m.RoleTemperatures, bad)
	for role, t := range m.RoleTemperatures {
		if !validTemperature(float64(t)) {
			bad("ROLE_TEMPERATURES", "role "+role+": must be between 0 and 2")
		}
	}
	if m.MaxCompletionTokens < 0 {
		bad("MAX_COMPLETION_TOKENS", "must not be negative")
	}
	checkRoles("ROLE_MAX_COMPLETION_TOKENS", m.RoleMaxCompletionTokens, bad)
	for role, n := range m.RoleMaxCompletionTokens {
		if n < 0 {
			bad("ROLE_MAX_COMPLETION_TOKENS", "role "+role+": must not be negative")
		}
	}
	return errs
}

// checkRoles reports keys of a per-role setting that are not roles.
func checkRoles[V any](name string, byRole map[string]V, bad func(name, why string)) {
	for role := range byRole {
		if !knownRoles[role] {
			bad(name, fmt.Sprintf("unknown role %q (known: %s)", role, roleList()))
		}
	}
}

func checkProtocol(name, what string, p llm.Protocol, bad func(name, why string)) {
	if p != "" && p != llm.ProtocolTools && p != llm.ProtocolText {
		bad(name, fmt.Sprintf("%swant %q or %q, got %q", what, llm.ProtocolTools, llm.ProtocolText, p))
	}
}

func validTemperature(t float64) bool { return t >= 0 && t <= 2 }

// ParsePrice reads "IN/OUT" or "IN/OUT/CACHED" (USD per million tokens).
func ParsePrice(s string) (llm.Price, error) {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return llm.Price{}, errors.New(`want "IN/OUT" or "IN/OUT/CACHED", USD per million tokens`)
	}
	var v [3]float64
	for i, part := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || f < 0 {
			return llm.Price{}, errors.New(`want "IN/OUT" or "IN/OUT/CACHED" with non-negative numbers`)
		}
		v[i] = f
	}
	return llm.Price{Prompt: v[0], Completion: v[1], Cached: v[2]}, nil
}

// APIKeyValue returns the API key, read from APIKeyFile when set.
func (m *Model) APIKeyValue() (string, error) {
	if m.APIKeyFile == "" {
		return m.APIKey, nil
	}
	b, err := os.ReadFile(m.APIKeyFile)
	if err != nil {
		return "", fmt.Errorf("read %sMODEL_API_KEY_FILE: %w", EnvPrefix, err)
	}
	return strings.TrimSpace(string(b)), nil
}
