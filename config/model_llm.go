package config

import (
	"maps"
	"slices"
	"strings"

	"github.com/issuesmith/issuesmith/llm"
)

// LLM converts the server's model settings into the llm package's Config;
// see Model.LLM.
func (s *Server) LLM() (llm.Config, error) { return s.Model.LLM() }

// LLMFor is LLM with a repository's per-role settings applied; see
// Model.LLMFor.
func (s *Server) LLMFor(r *Repo) (llm.Config, error) { return s.Model.LLMFor(r) }

// ModelAPIKey returns the model API key, read from APIKeyFile when set.
func (s *Server) ModelAPIKey() (string, error) { return s.Model.APIKeyValue() }

// LLM converts the model settings into the llm package's Config, reading
// the API key file when one is set. The default prices (INPUT_PRICE,
// OUTPUT_PRICE, CACHED_PRICE) apply to every model named without its own
// PRICES entry. Config.SettingName names the ISSUESMITH_MODEL_* variables,
// so llm's errors ("check ISSUESMITH_MODEL_BASE_URL") say what to change.
// The result is validated by llm.Config.Validate.
func (m *Model) LLM() (llm.Config, error) {
	key, err := m.APIKeyValue()
	if err != nil {
		return llm.Config{}, err
	}
	mc := *m // SettingName keeps this copy, not the caller's value
	c := llm.Config{
		BaseURL: m.BaseURL, APIKey: key, Model: m.Name, Timeout: m.Timeout,
		Temperature: m.Temperature, MaxTokens: m.MaxCompletionTokens, Protocol: m.Protocol,
		NoStream: m.NoStream, NoStreamUsage: m.NoStreamUsage, CacheMarks: slices.Contains(m.CacheMarks, "all"),
		Retry:       llm.RetryConfig{MaxAttempts: m.MaxRetries + 1, MaxRetryAfter: m.MaxRetryAfter},
		SettingName: mc.settingName,
	}
	if roles := m.llmRoles(); len(roles) > 0 {
		c.Roles = roles
	}
	if len(m.Protocols) > 0 {
		c.Protocols = maps.Clone(m.Protocols)
	}
	names := []string{m.Name}
	for _, rc := range c.Roles {
		names = append(names, rc.Model)
	}
	c.Prices = m.addPrices(nil, names...)
	if err := c.Validate(); err != nil {
		return llm.Config{}, err
	}
	return c, nil
}

// LLMFor is LLM with the repository's per-role settings (model,
// temperature, protocol, max_completion_tokens of .github/issuesmith.yml)
// applied on top with llm.Config.Override. A model chosen by the repository
// gets the default prices unless PRICES names it, and errors about a
// setting the repository made name the file's key instead of a variable.
func (m *Model) LLMFor(r *Repo) (llm.Config, error) {
	c, err := m.LLM()
	if err != nil || r == nil {
		return c, err
	}
	over := r.LLMRoles()
	c = c.Override(over)
	fromRepo := map[string]string{}
	var names []string
	for role, rc := range over {
		set := map[string]bool{"model": rc.Model != "", "temperature": rc.Temperature != 0,
			"protocol": rc.Protocol != "", "max_tokens": rc.MaxTokens != 0}
		for k, ok := range set {
			if ok {
				fromRepo["roles."+string(role)+"."+k] = repoRoleKey(string(role), k)
			}
		}
		names = append(names, rc.Model)
	}
	c.Prices = m.addPrices(c.Prices, names...)
	base := c.SettingName
	c.SettingName = func(key string) string {
		if n, ok := fromRepo[key]; ok {
			return n
		}
		return base(key)
	}
	if err := c.Validate(); err != nil {
		return llm.Config{}, err
	}
	return c, nil
}

// repoRoleKey names an llm role key as the repository file spells it.
func repoRoleKey(role, llmKey string) string {
	if llmKey == "max_tokens" {
		llmKey = "max_completion_tokens"
	}
	return RepoPath + " roles." + role + "." + llmKey
}

// llmRoles gathers the per-role settings into llm's per-role form.
func (m *Model) llmRoles() map[llm.Role]llm.RoleConfig {
	roles := map[llm.Role]llm.RoleConfig{}
	edit := func(role string, f func(*llm.RoleConfig)) {
		rc := roles[llm.Role(role)]
		f(&rc)
		roles[llm.Role(role)] = rc
	}
	for role, name := range m.Roles {
		edit(role, func(rc *llm.RoleConfig) { rc.Model = name })
	}
	for role, p := range m.RoleProtocols {
		edit(role, func(rc *llm.RoleConfig) { rc.Protocol = p })
	}
	for role, t := range m.RoleTemperatures {
		edit(role, func(rc *llm.RoleConfig) { rc.Temperature = t })
	}
	for role, n := range m.RoleMaxCompletionTokens {
		edit(role, func(rc *llm.RoleConfig) { rc.MaxTokens = n })
	}
	for _, role := range m.CacheMarks {
		if role != "all" {
			edit(role, func(rc *llm.RoleConfig) { rc.CacheMarks = true })
		}
	}
	return roles
}

// addPrices returns prices with an entry for every named model: its PRICES
// entry, else the default prices when any is set. Existing entries stay.
func (m *Model) addPrices(prices map[string]llm.Price, names ...string) map[string]llm.Price {
	def := llm.Price{Prompt: m.InputPrice, Completion: m.OutputPrice, Cached: m.CachedPrice}
	out := maps.Clone(prices)
	if out == nil {
		out = map[string]llm.Price{}
	}
	for model, s := range m.Prices {
		if p, err := ParsePrice(s); err == nil { // validate reported bad entries
			out[model] = p
		}
	}
	for _, n := range names {
		if _, ok := out[n]; !ok && n != "" && def != (llm.Price{}) {
			out[n] = def
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// settingName maps llm's setting keys to the ISSUESMITH_MODEL_* variables
// (llm.Config.SettingName). Unknown keys give "" so llm keeps its own name.
func (m Model) settingName(key string) string {
	v := func(name string) string { return EnvPrefix + "MODEL_" + name }
	switch key {
	case "base_url":
		return v("BASE_URL")
	case "api_key":
		if m.APIKeyFile != "" {
			return v("API_KEY_FILE")
		}
		return v("API_KEY")
	case "model":
		return v("NAME")
	case "timeout":
		return v("TIMEOUT")
	case "temperature":
		return v("TEMPERATURE")
	case "max_tokens":
		return v("MAX_COMPLETION_TOKENS")
	case "protocol":
		return v("PROTOCOL")
	case "no_stream":
		return v("NO_STREAM")
	case "no_stream_usage":
		return v("NO_STREAM_USAGE")
	case "retry", "retry.max_attempts":
		return v("MAX_RETRIES")
	case "retry.max_retry_after":
		return v("MAX_RETRY_AFTER")
	}
	if rest, ok := strings.CutPrefix(key, "roles."); ok {
		_, field, _ := strings.Cut(rest, ".")
		return map[string]string{"model": v("ROLES"), "protocol": v("ROLE_PROTOCOLS"),
			"temperature": v("ROLE_TEMPERATURES"), "max_tokens": v("ROLE_MAX_COMPLETION_TOKENS")}[field]
	}
	if _, ok := strings.CutPrefix(key, "protocols."); ok {
		return v("PROTOCOLS")
	}
	if model, ok := strings.CutPrefix(key, "prices."); ok {
		if _, own := m.Prices[model]; own {
			return v("PRICES")
		}
		return v("INPUT_PRICE") + ", " + v("OUTPUT_PRICE") + " or " + v("CACHED_PRICE")
	}
	return ""
}

// LLMRoles returns the repository's per-role model settings (model,
// temperature, protocol, max_completion_tokens) in the form
// llm.Config.Override takes; roles setting none of them are left out.
// Model.LLMFor applies them and names the file's keys in errors.
func (c *Repo) LLMRoles() map[llm.Role]llm.RoleConfig {
	out := map[llm.Role]llm.RoleConfig{}
	for role, rc := range c.Roles {
		o := llm.RoleConfig{Model: rc.Model, Temperature: float32(rc.Temperature), MaxTokens: rc.MaxCompletionTokens, Protocol: rc.Protocol}
		if o != (llm.RoleConfig{}) {
			out[llm.Role(role)] = o
		}
	}
	return out
}
