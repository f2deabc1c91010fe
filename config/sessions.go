package config

import (
	"fmt"
	"net/url"
	"regexp"
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
	// Operators are GitHub logins who see every session of the GitHub
	// App's repositories (others see the sessions of repositories GitHub
	// says they can read).
	Operators []string `env:"SESSIONS_OPERATORS"`
	// GiteaClientID and GiteaClientSecret are the credentials of an OAuth2
	// application on the Gitea server (ISSUESMITH_GITEA_URL; make it in
	// Gitea under Settings →
	// Applications, confidential, with the redirect URI PublicURL +
	// "/gitea-sessions/callback", or PublicURL + "/sessions/callback" when
	// the bot serves Gitea alone): with them the sessions of the Gitea
	// repositories get their own page, signed in with Gitea, at
	// /gitea-sessions beside GitHub's /sessions (at /sessions when Gitea is
	// served alone). Set both or neither.
	GiteaClientID     string `env:"SESSIONS_GITEA_CLIENT_ID"`
	GiteaClientSecret string `env:"SESSIONS_GITEA_CLIENT_SECRET"`
	// GiteaOperators are Gitea logins who see every session of the Gitea
	// server's repositories (others see the sessions of repositories Gitea
	// says they can read).
	GiteaOperators []string `env:"SESSIONS_GITEA_OPERATORS"`
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

// GiteaPageOff says in one line why the Gitea sessions page is off (""
// when on); giteaURL is GITEA_URL.
func (s *Sessions) GiteaPageOff(giteaURL string) string {
	var missing []string
	if giteaURL == "" {
		missing = append(missing, EnvPrefix+"GITEA_URL")
	}
	if s.PublicURL == "" {
		missing = append(missing, EnvPrefix+"PUBLIC_URL")
	}
	if s.GiteaClientID == "" || s.GiteaClientSecret == "" {
		missing = append(missing, EnvPrefix+"SESSIONS_GITEA_CLIENT_ID and "+EnvPrefix+"SESSIONS_GITEA_CLIENT_SECRET")
	}
	if len(missing) == 0 {
		return ""
	}
	return "Gitea sessions page off: set " + strings.Join(missing, " and ")
}

// giteaLogin is a Gitea user name: letters, digits, '-', '_' and '.'.
var giteaLogin = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,40}$`)

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
	if (s.GiteaClientID == "") != (s.GiteaClientSecret == "") {
		bad("SESSIONS_GITEA_CLIENT_SECRET", "set both "+EnvPrefix+"SESSIONS_GITEA_CLIENT_ID and "+EnvPrefix+
			"SESSIONS_GITEA_CLIENT_SECRET, or neither")
	}
	for _, op := range s.GiteaOperators {
		if !giteaLogin.MatchString(op) {
			bad("SESSIONS_GITEA_OPERATORS", "must be Gitea logins separated by commas")
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
