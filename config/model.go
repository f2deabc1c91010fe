package config

import (
	"github.com/issuesmith/issuesmith/llm"
)

// LLM converts the model settings into the llm package's Config, reading the
// API key file when one is set. Prices, when given, apply to every model
// named (the default and the per-role ones). The result is validated by
// llm.Config.Validate.
func (s *Server) LLM() (llm.Config, error) {
	key, err := s.ModelAPIKey()
	if err != nil {
		return llm.Config{}, err
	}
	m := s.Model
	c := llm.Config{BaseURL: m.BaseURL, APIKey: key, Model: m.Name, Timeout: m.Timeout,
		Retry: llm.RetryConfig{MaxAttempts: m.MaxRetries + 1}}
	names := []string{m.Name}
	if len(m.Roles) > 0 {
		c.Roles = map[llm.Role]llm.RoleConfig{}
		for role, name := range m.Roles {
			c.Roles[llm.Role(role)] = llm.RoleConfig{Model: name}
			names = append(names, name)
		}
	}
	if m.InputPrice > 0 || m.OutputPrice > 0 {
		c.Prices = map[string]llm.Price{}
		for _, n := range names {
			c.Prices[n] = llm.Price{Prompt: m.InputPrice, Completion: m.OutputPrice}
		}
	}
	if err := c.Validate(); err != nil {
		return llm.Config{}, err
	}
	return c, nil
}

// LLMRoles returns the repository's per-role model choices in the form
// llm.Config.Override takes (roles without a model are left out).
func (c *Repo) LLMRoles() map[llm.Role]llm.RoleConfig {
	out := map[llm.Role]llm.RoleConfig{}
	for role, rc := range c.Roles {
		if rc.Model != "" {
			out[llm.Role(role)] = llm.RoleConfig{Model: rc.Model}
		}
	}
	return out
}
