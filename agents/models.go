package agents

import (
	"fmt"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/workflow"
)

// Models gives the model client for a repository: the server's (built from
// config.Model.LLM: protocol, temperature, completion cap, no-stream, prices
// per model), or one with the repository's per-role settings of
// .github/issuesmith.yml (model, temperature, protocol,
// max_completion_tokens) applied by config.Model.LLMFor.
type Models struct {
	conf *config.Model
	def  llm.Model
	gate llm.Gate
}

// NewModels builds the server's model client from its settings; errors
// name the ISSUESMITH_MODEL_* variable to change.
func NewModels(conf *config.Model) (*Models, error) {
	lc, err := conf.LLM()
	if err != nil {
		return nil, err
	}
	client, err := llm.NewClient(lc)
	if err != nil {
		return nil, err
	}
	return &Models{conf: conf, def: session.WrapModel(client)}, nil
}

// NewGatedModels is NewModels whose every client asks gate before each
// model call (bot serve: the spending limits of package budget).
func NewGatedModels(conf *config.Model, gate llm.Gate) (*Models, error) {
	lc, err := conf.LLM()
	if err != nil {
		return nil, err
	}
	lc.Gate = gate
	client, err := llm.NewClient(lc)
	if err != nil {
		return nil, err
	}
	return &Models{conf: conf, def: session.WrapModel(client), gate: gate}, nil
}

// ForRepo is the model for a run of the repository whose settings are cfg.
// Its calls are recorded in the session the call's context carries
// (session.WrapModel), if any.
func (m *Models) ForRepo(cfg *config.Repo) (llm.Model, error) {
	if cfg == nil || len(cfg.LLMRoles()) == 0 {
		return m.def, nil
	}
	lc, err := m.conf.LLMFor(cfg)
	if err != nil {
		return nil, permanentConfig(err)
	}
	lc.Gate = m.gate
	c, err := llm.NewClient(lc)
	if err != nil {
		return nil, permanentConfig(err)
	}
	return session.WrapModel(c), nil
}

// permanentConfig words an error in the repository's model settings.
func permanentConfig(err error) error {
	return fmt.Errorf("the model settings of %s: %w", config.RepoPath, err)
}

// spendOf runs fn with a model that records its calls and returns their
// tokens and cost (llm.Response.Cost, priced per model by the client).
func spendOf(model llm.Model, fn func(m llm.Model) error) (workflow.Spend, error) {
	var l llm.Ledger
	err := fn(l.Track("call", model))
	_, total := l.Run("call")
	return workflow.Spend{Usage: total.Usage, Cost: total.Cost}, err
}
