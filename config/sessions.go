package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Sessions are the settings of the sessions page (/sessions on the bot's
// listener, signed in with GitHub through the App's OAuth credentials) and of
// what the bot keeps of each run.
type Sessions struct {
	// PublicURL is the bot's address as people reach it
	// ("https://bot.example.com"); the page's sign-in callback is
	// PublicURL + "/sessions/callback" (add it to the App's callback URLs).
	// The page is off without it.
	PublicURL string `env:"PUBLIC_URL"`
	// OAuthClientID and OAuthClientSecret are the App's OAuth client
	// credentials, for signing in to the sessions page (`bot setup` writes
	// them; for an App registered by hand, copy the id from its settings
	// page and generate a secret there). Set both or neither.
	OAuthClientID     string `env:"OAUTH_CLIENT_ID"`
	OAuthClientSecret string `env:"OAUTH_CLIENT_SECRET"`
	// Operators are GitHub logins who see every session (others see the
	// sessions of repositories GitHub says they can read).
	Operators []string `env:"SESSIONS_OPERATORS"`
	// MaxBytes bounds what one run's session stores: past it the oldest
	// tool results are shortened first, then events are kept without their
	// texts, and the cut is marked.
	MaxBytes int64 `env:"SESSIONS_MAX_BYTES" envDefault:"2097152"`
	// Retention is how long sessions are kept (90 days by default); older
	// ones are deleted at start-up and every 6 hours.
	Retention time.Duration `env:"SESSIONS_RETENTION" envDefault:"2160h"`
	// TraceContent adds the recorded (redacted) prompts, replies, tool
	// arguments and results to the OpenTelemetry traces exported when
	// OTEL_EXPORTER_OTLP_ENDPOINT is set; without it, traces carry only
	// names, counts, durations and results.
	TraceContent bool `env:"OTEL_CONTENT"`
}

// PageOff says in one line why the sessions page is off ("" when on).
func (s *Sessions) PageOff() string {
	var missing []string
	if s.PublicURL == "" {
		missing = append(missing, EnvPrefix+"PUBLIC_URL")
	}
	if s.OAuthClientID == "" || s.OAuthClientSecret == "" {
		missing = append(missing, EnvPrefix+"OAUTH_CLIENT_ID and "+EnvPrefix+"OAUTH_CLIENT_SECRET")
	}
	if len(missing) == 0 {
		return ""
	}
	return "sessions page off: set " + strings.Join(missing, " and ")
}

// validate checks the sessions settings.
func (s *Sessions) validate() []error {
	var errs []error
	bad := func(name, why string) { errs = append(errs, fmt.Errorf("%s%s: %s", EnvPrefix, name, why)) }
	if s.PublicURL != "" {
		u, err := url.Parse(s.PublicURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" {
			bad("PUBLIC_URL", "must be an absolute http(s) URL without a query")
		}
		s.PublicURL = strings.TrimSuffix(s.PublicURL, "/")
	}
	if (s.OAuthClientID == "") != (s.OAuthClientSecret == "") {
		bad("OAUTH_CLIENT_SECRET", "set both "+EnvPrefix+"OAUTH_CLIENT_ID and "+EnvPrefix+"OAUTH_CLIENT_SECRET, or neither")
	}
	for _, op := range s.Operators {
		if !githubLogin.MatchString(op) {
			bad("SESSIONS_OPERATORS", "must be GitHub logins separated by commas")
			break
		}
	}
	if s.MaxBytes < 64<<10 {
		bad("SESSIONS_MAX_BYTES", "must be at least 65536")
	}
	if s.Retention < time.Hour {
		bad("SESSIONS_RETENTION", "must be at least 1h")
	}
	return errs
}
