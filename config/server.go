package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/issuesmith/issuesmith/internal/redact"
)

// EnvPrefix prefixes every server setting's environment variable.
const EnvPrefix = "ISSUESMITH_"

// FileVar names the variable that points at an optional settings file: lines
// of NAME=value with the same names as the environment (# starts a comment).
// Real environment variables override the file.
const FileVar = EnvPrefix + "CONFIG_FILE"

// Server is the bot's process configuration. Field tags give the variable
// names (after EnvPrefix) and defaults; the field comments are the
// operator's reference too: docs/configure-reference.md is generated from
// them (`go generate ./config`).
type Server struct {
	// AppID is the GitHub App's numeric id.
	AppID int64 `env:"APP_ID"`
	// PrivateKeyFile is the path of the App's PEM private key; PrivateKey is
	// the PEM text itself (literal "\n" sequences are accepted). Set one.
	PrivateKeyFile string `env:"PRIVATE_KEY_FILE"`
	PrivateKey     string `env:"PRIVATE_KEY"`
	// WebhookSecret is the App's webhook secret (HMAC-SHA256 key).
	WebhookSecret string `env:"WEBHOOK_SECRET"`
	// GitHubURL is the REST API root; for GitHub Enterprise Server
	// "https://HOST/api/v3/".
	GitHubURL string `env:"GITHUB_URL" envDefault:"https://api.github.com/"`
	// BotLogin is the App's bot login ("slug[bot]"); asked from GitHub when
	// empty.
	BotLogin string `env:"BOT_LOGIN"`
	// GiteaURL is a Gitea or Forgejo server's root URL
	// ("https://gitea.example.com/"): the bot serves its repositories
	// beside the GitHub App's, or alone (leave the App's settings out), as
	// the user who owns GiteaTokenFile's token, with their webhooks sent to
	// /webhook/gitea (`bot setup --forge gitea` makes them). Empty: no
	// Gitea.
	GiteaURL string `env:"GITEA_URL"`
	// GiteaTokenFile is the path of the bot user's Gitea access token
	// (scopes write:repository, write:issue and read:user); required with
	// GiteaURL.
	GiteaTokenFile string `env:"GITEA_TOKEN_FILE"`
	// GiteaWebhookSecret is the secret of the Gitea repositories' webhooks
	// (HMAC-SHA256 key); required with GiteaURL.
	GiteaWebhookSecret string `env:"GITEA_WEBHOOK_SECRET"`
	// StateDir is the state directory DatabaseURL and DataDir default
	// into, so they never depend on the directory bot starts in.
	StateDir string `env:"STATE_DIR"`
	// DatabaseURL is a SQLite file path (created on first start) or a
	// postgres:// URL, to share one database between replicas.
	DatabaseURL string `env:"DATABASE_URL"`
	// DataDir holds repository clones and per-run worktrees.
	DataDir string `env:"DATA_DIR"`
	// ListenAddr is where /webhook, /sessions, /healthz, /readyz and
	// /metrics listen.
	ListenAddr string `env:"LISTEN_ADDR" envDefault:":8080"`
	// ReplicaID names this process among the replicas sharing a PostgreSQL
	// database, the same across its restarts, so jobs it left running at a
	// crash resume when it starts again (default: host name and listen
	// port). Two live processes must never share one.
	ReplicaID string `env:"REPLICA_ID"`
	// WebhookMaxBody caps a webhook body in bytes (GitHub's own cap is 25 MB).
	WebhookMaxBody int64 `env:"WEBHOOK_MAX_BODY" envDefault:"26214400"`
	// WebhookMaxInFlight bounds the bytes of webhook bodies held at once
	// (reserved from each request's Content-Length before reading);
	// requests past it get 503 with Retry-After: 5, counted as
	// issuesmith_webhook_deliveries_total{event="unverified",result="shed"}.
	// At least WebhookMaxBody. Bodies must arrive within 30 s.
	WebhookMaxInFlight int64 `env:"WEBHOOK_MAX_IN_FLIGHT" envDefault:"104857600"`
	// Workers is how many jobs run at once.
	Workers int `env:"WORKERS" envDefault:"2"`
	// ShutdownTimeout bounds the wait for running steps at shutdown.
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" envDefault:"30s"`
	// LogLevel is debug, info, warn or error.
	LogLevel string `env:"LOG_LEVEL" envDefault:"info"`
	// AllowCheckCommands lets repositories run their `checks` (with
	// run_commands: true in .github/issuesmith.yml). Off by default: a
	// check is code from the repository running on the bot's machine, as
	// the bot's user, next to its private key and the other installations'
	// worktrees; turn it on only when every installing repository is
	// trusted (or the bot runs in a per-repository sandbox).
	AllowCheckCommands bool `env:"ALLOW_CHECK_COMMANDS"`
	// SummaryRefresh is the cron schedule ("0 3 * * *", "@daily",
	// "@every 6h", in UTC) on which the file summaries of every repository
	// the bot has worked on (a run, or a push it refreshed; forgotten when
	// the App is uninstalled or loses the repository) are refreshed,
	// besides the refresh after each push; "off" switches the periodic
	// refresh off.
	SummaryRefresh string `env:"SUMMARY_REFRESH" envDefault:"0 3 * * *"`
	// HoldDir is where a delivery the database could not record waits, on
	// disk, until the database answers again:
	// such a delivery is answered 202 and recorded seconds after the
	// outage, instead of 503 and GitHub's redelivery. "off" answers 503.
	// Each replica needs its own directory on storage that outlives the
	// process (a held delivery is lost with its disk).
	HoldDir string `env:"HOLD_DIR"`
	// HoldMax bounds the deliveries held at once; past it they are
	// answered 503 (and the reconciler asks for them again).
	HoldMax int `env:"HOLD_MAX" envDefault:"20000"`
	// Redeliver is the cron schedule of the pass that asks GitHub to
	// redeliver the webhook deliveries the bot missed (and, with a Gitea
	// server, polls it for what its webhooks missed), or "off".
	Redeliver string `env:"REDELIVER" envDefault:"@every 5m"`
	// RedeliverSince is how far back each pass reads the delivery log (at
	// most 72h: GitHub keeps three days of deliveries).
	RedeliverSince time.Duration `env:"REDELIVER_SINCE" envDefault:"6h"`
	// Push is where the bot pushes its branches: PushOrigin (the
	// repository itself) or PushFork (a fork owned by ForkOwner, so the
	// repository's rules for pull requests from forks apply to
	// model-written code).
	Push string `env:"PUSH" envDefault:"origin"`
	// ForkOwner is the user or organization that owns the forks (with
	// PushFork); the App must be installed there.
	ForkOwner string `env:"FORK_OWNER"`
	// Sessions holds the sessions page and record settings (sessions.go).
	Sessions Sessions `envPrefix:""`
	// Model holds the language model settings (variables ISSUESMITH_MODEL_*).
	Model Model `envPrefix:"MODEL_"`
	// Sandbox holds the sandbox's caches, disk floor and egress ceiling.
	Sandbox Sandbox `envPrefix:""`
	// Limits holds the spending limits and the loop guard (limits.go).
	Limits Limits `envPrefix:""`

	// File is the settings file the environment's FileVar (or bot serve's
	// --config) named, "" without one: not a setting, a record of where
	// the settings came from, so the sandbox can hide it.
	File string
}

// LoadServer reads the server configuration from the process environment
// (and the file named by ISSUESMITH_CONFIG_FILE), applies defaults and
// validates it.
func LoadServer() (*Server, error) {
	return ParseServer(os.Environ())
}

// ParseServer is LoadServer over the given "NAME=value" environment, for
// tests and tools.
func ParseServer(environ []string) (*Server, error) {
	vars, err := environment(environ)
	if err != nil {
		return nil, err
	}
	var s Server
	if err := env.ParseWithOptions(&s, env.Options{Prefix: EnvPrefix, Environment: vars}); err != nil {
		return nil, fmt.Errorf("server config: %w", namedParseErrors(err, reflect.TypeFor[Server](), EnvPrefix))
	}
	stateDefaults(vars, &s.DatabaseURL, &s.DataDir)
	s.File = vars[FileVar]
	if s.HoldDir == "" && s.DataDir != "" {
		s.HoldDir = filepath.Join(s.DataDir, "held")
	}
	if strings.Contains(s.PrivateKey, `\n`) && !strings.Contains(s.PrivateKey, "\n") {
		s.PrivateKey = strings.ReplaceAll(s.PrivateKey, `\n`, "\n")
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Validate checks that the configuration can run the App. It names every
// problem by its variable, never by its value.
func (s *Server) Validate() error {
	var errs []error
	bad := func(name, why string) { errs = append(errs, fmt.Errorf("%s%s: %s", EnvPrefix, name, why)) }
	// The GitHub App is required unless a Gitea server is served alone.
	if s.HasApp() || s.GiteaURL == "" {
		if s.AppID <= 0 {
			bad("APP_ID", "required: the GitHub App's numeric id")
		}
		switch {
		case s.PrivateKey == "" && s.PrivateKeyFile == "":
			bad("PRIVATE_KEY_FILE", "required (or "+EnvPrefix+"PRIVATE_KEY): the App's private key")
		case s.PrivateKey != "" && s.PrivateKeyFile != "":
			bad("PRIVATE_KEY", "set either "+EnvPrefix+"PRIVATE_KEY or "+EnvPrefix+"PRIVATE_KEY_FILE, not both")
		case s.PrivateKey != "" && !strings.Contains(s.PrivateKey, "PRIVATE KEY"):
			bad("PRIVATE_KEY", "is not a PEM private key")
		}
		if s.WebhookSecret == "" {
			bad("WEBHOOK_SECRET", "required: the secret set on the App's webhook")
		}
	}
	if u, err := url.Parse(s.GitHubURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		bad("GITHUB_URL", "must be an absolute http(s) URL")
	}
	s.validateGitea(bad)
	if s.BotLogin != "" && !strings.HasSuffix(s.BotLogin, "[bot]") {
		bad("BOT_LOGIN", `must be the App's bot user, "<slug>[bot]"`)
	}
	if _, _, err := net.SplitHostPort(s.ListenAddr); err != nil {
		bad("LISTEN_ADDR", "must be host:port or :port")
	}
	if s.DatabaseURL == "" {
		bad("DATABASE_URL", noStateDir)
	}
	if s.DataDir == "" {
		bad("DATA_DIR", noStateDir)
	}
	if s.WebhookMaxBody < 1024 {
		bad("WEBHOOK_MAX_BODY", "must be at least 1024 bytes")
	}
	if s.WebhookMaxInFlight < s.WebhookMaxBody {
		bad("WEBHOOK_MAX_IN_FLIGHT", "must be at least WEBHOOK_MAX_BODY")
	}
	if s.Workers < 1 {
		bad("WORKERS", "must be at least 1")
	}
	if _, ok := logLevels[strings.ToLower(s.LogLevel)]; !ok {
		bad("LOG_LEVEL", "must be debug, info, warn or error")
	}
	if s.HoldMax < 1 {
		bad("HOLD_MAX", "must be at least 1 (set HOLD_DIR=off to hold nothing)")
	}
	if !validSchedule(s.Redeliver) {
		bad("REDELIVER", `must be a cron schedule ("*/5 * * * *", "@every 5m") or off`)
	}
	if s.RedeliverSince <= 0 || s.RedeliverSince > 72*time.Hour {
		bad("REDELIVER_SINCE", "must be positive and at most 72h (GitHub keeps three days of deliveries)")
	}
	if !validSchedule(s.SummaryRefresh) {
		bad("SUMMARY_REFRESH", `must be a cron schedule ("0 3 * * *", "@daily", "@every 6h") or off`)
	}
	errs = append(errs, s.validatePush()...)
	errs = append(errs, s.Sessions.validate()...)
	errs = append(errs, s.Limits.validate()...)
	errs = append(errs, s.Model.validate(true)...)
	if len(errs) > 0 {
		return fmt.Errorf("server config: %w", errors.Join(errs...))
	}
	return nil
}

var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

// SlogLevel returns LogLevel as a slog level (info when unknown).
func (s *Server) SlogLevel() slog.Level { return logLevels[strings.ToLower(s.LogLevel)] }

// Key returns the App's PEM private key, read from PrivateKeyFile when set.
func (s *Server) Key() ([]byte, error) {
	if s.PrivateKeyFile == "" {
		return []byte(s.PrivateKey), nil
	}
	b, err := os.ReadFile(s.PrivateKeyFile)
	if err != nil {
		return nil, fmt.Errorf("read %sPRIVATE_KEY_FILE: %w", EnvPrefix, err)
	}
	return b, nil
}

// LogValue implements slog.LogValuer with every secret redacted.
func (s *Server) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Int64("app_id", s.AppID),
		slog.String("private_key", setting(s.PrivateKey, s.PrivateKeyFile)),
		slog.String("webhook_secret", setting(s.WebhookSecret, "")),
		slog.String("github_url", s.GitHubURL),
		slog.String("gitea_url", s.GiteaURL),
		slog.String("gitea_token", setting("", s.GiteaTokenFile)),
		slog.String("gitea_webhook_secret", setting(s.GiteaWebhookSecret, "")),
		slog.String("database", redact.URL(s.DatabaseURL)),
		slog.String("listen", s.ListenAddr),
		slog.String("hold_dir", s.HoldDir),
		slog.Bool("allow_check_commands", s.AllowCheckCommands),
		slog.String("push", s.Push),
		slog.String("fork_owner", s.ForkOwner),
		slog.String("model_base_url", redact.URL(s.Model.BaseURL)), // a proxy may take user:key@
		slog.String("model", s.Model.Name),
		slog.Any("model_roles", s.Model.Roles),
		slog.String("model_protocol", string(s.Model.Protocol)),
		slog.String("model_api_key", setting(s.Model.APIKey, s.Model.APIKeyFile)),
	)
}

// String describes the configuration with secrets redacted.
func (s *Server) String() string { return s.LogValue().String() }

func setting(value, file string) string {
	switch {
	case file != "":
		return "file " + file
	case value != "":
		return "[set]"
	}
	return "[unset]"
}
