package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/session/otelexport"
)

// flushTimeout bounds the traces' last flush at shutdown.
const flushTimeout = 5 * time.Second

// traces is the OpenTelemetry export of every run's session when the
// standard OTLP endpoint variable is set (package session/otelexport), and
// /readyz's line about it; nil and "" when it is not. Trace ids derive
// from the App's private key: stable across restarts, distinct between
// installations.
func traces(ctx context.Context, cfg *config.Server, log *slog.Logger) (*otelexport.Exporter, string, error) {
	if !otelexport.Enabled() {
		return nil, "", nil
	}
	key, err := cfg.Key()
	if err != nil {
		return nil, "", err
	}
	exp, err := otelexport.New(ctx, otelexport.Options{Key: key, Provider: otelexport.ProviderOf(cfg.Model.BaseURL),
		Content: cfg.Sessions.TraceContent, Logger: log})
	if err != nil {
		return nil, "", err
	}
	line := "traces: each run exported over OTLP/HTTP to " + otelexport.Endpoint()
	if cfg.Sessions.TraceContent {
		line += " (with the recorded texts)"
	}
	log.Info(line)
	return exp, line, nil
}

// exporterCloser flushes the traces when the server closes.
type exporterCloser struct{ exp *otelexport.Exporter }

func (c exporterCloser) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	return c.exp.Shutdown(ctx)
}
