package otelexport

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A collector that is down fails every batch: the first failure is logged
// at once, redacted, and the next ones within the minute only counted.
func TestExportFailuresAreLoggedOnceAMinute(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := &errorLog{log: slog.New(slog.NewTextHandler(&buf, nil))}
	for range 5 {
		l.Handle(errors.New("post https://user:hunter2@collector/v1/traces: connection refused"))
	}
	require.Equal(t, 1, strings.Count(buf.String(), "traces: export failed"))
	require.NotContains(t, buf.String(), "hunter2")
	require.Equal(t, 4, l.skipped)
}

// gen_ai.provider.name follows the model endpoint's host.
func TestProviderOf(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]string{
		"https://api.openai.com/v1":                                "openai",
		"https://api.anthropic.com/v1/":                            "anthropic",
		"https://generativelanguage.googleapis.com/v1beta/openai/": "gcp.gemini",
		"https://openrouter.ai/api/v1":                             "openrouter",
		"https://my-res.openai.azure.com/openai/v1":                "azure.ai.openai",
		"http://127.0.0.1:8000/v1":                                 "openai",
		"::not a url":                                              "openai",
	} {
		require.Equal(t, want, ProviderOf(url), url)
	}
}
