package otelexport

import (
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/issuesmith/issuesmith/internal/redact"
)

// logEvery spaces the log lines of failed exports: an endpoint that is
// down fails every batch.
const logEvery = time.Minute

// errorLog logs the SDK's errors (failed exports) to log: the first at
// once, then at most one line per logEvery with how many were left out.
type errorLog struct {
	log *slog.Logger

	mu      sync.Mutex
	last    time.Time
	skipped int
}

func (l *errorLog) Handle(err error) {
	l.mu.Lock()
	if !l.last.IsZero() && time.Since(l.last) < logEvery {
		l.skipped++
		l.mu.Unlock()
		return
	}
	skipped := l.skipped
	l.last, l.skipped = time.Now(), 0
	l.mu.Unlock()
	l.log.Warn("traces: export failed; the runs go on without it", "err", redact.Text(err.Error()),
		"errors_not_logged", skipped)
}

// providers maps an API host to gen_ai.provider.name.
var providers = map[string]string{
	"api.openai.com":                    "openai",
	"api.anthropic.com":                 "anthropic",
	"generativelanguage.googleapis.com": "gcp.gemini",
	"api.deepseek.com":                  "deepseek",
	"api.groq.com":                      "groq",
	"api.mistral.ai":                    "mistral_ai",
	"api.x.ai":                          "x_ai",
	"api.perplexity.ai":                 "perplexity",
	"api.cohere.com":                    "cohere",
	"openrouter.ai":                     "openrouter",
}

// ProviderOf names the provider of the OpenAI-compatible API at baseURL
// for gen_ai.provider.name: a well-known host's name, Azure OpenAI by its
// domain, else "openai" (the API the bot speaks).
func ProviderOf(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return "openai"
	}
	host := strings.ToLower(u.Hostname())
	if p, ok := providers[host]; ok {
		return p
	}
	if strings.HasSuffix(host, ".openai.azure.com") {
		return "azure.ai.openai"
	}
	return "openai"
}
