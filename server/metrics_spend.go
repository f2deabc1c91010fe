package server

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/issuesmith/issuesmith/budget"
)

// spendMetrics are the series of what model calls spend, as the spending
// limits charge them (budget.Gate.Charged).
type spendMetrics struct {
	tokens *prometheus.CounterVec
	cost   *prometheus.CounterVec
	left   *prometheus.GaugeVec
}

func newSpendMetrics(reg *prometheus.Registry) *spendMetrics {
	labels := []string{"installation", "repo", "role", "model"}
	s := &spendMetrics{
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "issuesmith_spend_tokens_total",
			Help: "Model tokens charged, by installation, repository, role, model and kind (prompt, cached, completion; cached tokens are part of prompt).",
		}, append(labels, "kind")),
		cost: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "issuesmith_spend_cost_total", Help: "Model cost charged (ISSUESMITH_MODEL_PRICES), by installation, repository, role and model.",
		}, labels),
		left: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "issuesmith_spend_left",
			Help: "What a repository's or installation's active window has left under its limit after the last call (window: repo_day, repo_month, installation_day, installation_month; kind: tokens, cost).",
		}, []string{"window", "scope", "kind"}),
	}
	reg.MustRegister(s.tokens, s.cost, s.left)
	return s
}

// charged is budget.Gate.Charged.
func (m *metrics) charged(c budget.Charged) {
	s := m.spend
	inst, repo := strconv.FormatInt(c.Scope.InstallationID, 10), c.Scope.Owner+"/"+c.Scope.Repo
	u := c.Spent.Usage
	for kind, n := range map[string]int{"prompt": u.PromptTokens, "cached": u.CachedTokens, "completion": u.CompletionTokens} {
		s.tokens.WithLabelValues(inst, repo, string(c.Role), c.Model, kind).Add(float64(n))
	}
	s.cost.WithLabelValues(inst, repo, string(c.Role), c.Model).Add(c.Spent.Cost)
	for _, l := range c.Left {
		scope := repo
		if l.Window == budget.ScopeInstallationDay || l.Window == budget.ScopeInstallationMonth {
			scope = inst
		}
		s.left.WithLabelValues(l.Window, scope, l.Kind).Set(l.Value)
	}
}
