package procenv

import (
	"os"
	"strings"
)

// Prefix starts the name of every bot setting (config.EnvPrefix); such
// variables are removed from a child's environment.
const Prefix = "ISSUESMITH_"

// OTelPrefix starts the OpenTelemetry SDK's settings, which the bot's trace
// export reads (session/otelexport): the collector's address and headers
// (a tracing backend's key) are removed from a child's environment too.
const OTelPrefix = "OTEL_"

// Scrubbed returns this process's environment without the bot's settings,
// for exec.Cmd.Env.
func Scrubbed() []string { return Filter(os.Environ()) }

// Filter returns env ("KEY=value" entries) without the bot's settings and
// OpenTelemetry settings.
func Filter(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, Prefix) && !strings.HasPrefix(kv, OTelPrefix) {
			out = append(out, kv)
		}
	}
	return out
}

// Lookup returns the value of key in env, as os.LookupEnv does for the
// process (the last entry wins).
func Lookup(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v, true
		}
	}
	return "", false
}
