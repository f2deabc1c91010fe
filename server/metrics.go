package server

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/llm"
)

// metrics are the Prometheus series of `bot serve`, on their own registry
// (no package-level state).
type metrics struct {
	reg        *prometheus.Registry
	deliveries *prometheus.CounterVec
	jobs       *prometheus.CounterVec
	tokens     *prometheus.CounterVec
	cost       *prometheus.CounterVec
	ghCalls    *prometheus.CounterVec
	rateLimit  prometheus.Gauge
	spend      *spendMetrics
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "issuesmith_webhook_deliveries_total", Help: "Webhook deliveries by GitHub event and result.",
		}, []string{"event", "result"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "issuesmith_jobs_total", Help: "Workflow jobs by stage and outcome (ok, waiting, failed, cancelled, retry, snoozed).",
		}, []string{"stage", "outcome"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "issuesmith_model_tokens_total", Help: "Model tokens by agent role and kind (prompt, completion).",
		}, []string{"role", "kind"}),
		cost: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "issuesmith_model_cost_total", Help: "Estimated model cost by agent role, in the configured currency.",
		}, []string{"role"}),
		ghCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "issuesmith_github_api_calls_total", Help: "GitHub API calls by method and status (0: no answer).",
		}, []string{"method", "status"}),
		rateLimit: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "issuesmith_github_rate_limit_remaining", Help: "X-RateLimit-Remaining of the last GitHub answer that had it.",
		}),
	}
	m.spend = newSpendMetrics(m.reg)
	m.reg.MustRegister(m.deliveries, m.jobs, m.tokens, m.cost, m.ghCalls, m.rateLimit,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) delivery(event, result string, _ time.Duration) {
	m.deliveries.WithLabelValues(event, result).Inc()
}

func (m *metrics) job(stage, outcome string) { m.jobs.WithLabelValues(stage, outcome).Inc() }

func (m *metrics) usage(role llm.Role, u llm.Usage, cost float64) {
	m.tokens.WithLabelValues(string(role), "prompt").Add(float64(u.PromptTokens))
	m.tokens.WithLabelValues(string(role), "completion").Add(float64(u.CompletionTokens))
	m.cost.WithLabelValues(string(role)).Add(cost)
}

func (m *metrics) githubCall(c ghapp.Call) {
	m.ghCalls.WithLabelValues(c.Method, strconv.Itoa(c.Status)).Inc()
	if c.Remaining >= 0 {
		m.rateLimit.Set(float64(c.Remaining))
	}
}
