package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river"
	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/agents"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/summaries"
	"github.com/issuesmith/issuesmith/webhook"
	"github.com/issuesmith/issuesmith/workflow"
)

// newServeCmd builds `bot serve`: the GitHub App. Configuration comes from
// the environment and ISSUESMITH_CONFIG_FILE (config.ParseServer); the two
// flags are shorthands for the settings most often changed by hand.
func newServeCmd() *cobra.Command {
	var listen, file string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the GitHub App: /webhook, /healthz, /readyz, /metrics (config from ISSUESMITH_* variables)",
		Long: "serve runs the GitHub App: /webhook, /healthz, /readyz and /metrics on ISSUESMITH_LISTEN_ADDR (:8080).\n" +
			"Settings come from ISSUESMITH_* environment variables, or from a file of NAME=value lines\n" +
			"named by ISSUESMITH_CONFIG_FILE or --config (real variables win over the file; --listen wins over\n" +
			"both). Required: ISSUESMITH_APP_ID, ISSUESMITH_PRIVATE_KEY_FILE (or ISSUESMITH_PRIVATE_KEY),\n" +
			"ISSUESMITH_WEBHOOK_SECRET and ISSUESMITH_MODEL_NAME; `bot setup` writes all but the model's into\n" +
			"issuesmith.env. The database (ISSUESMITH_DATABASE_URL) and the data directory (ISSUESMITH_DATA_DIR)\n" +
			"default into the state directory: ISSUESMITH_STATE_DIR, systemd's $STATE_DIRECTORY, else\n" +
			"~/.local/state/issuesmith. The README's \"Configure\" section lists every variable with its default.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.ParseServer(serveEnviron(os.Environ(), file, listen))
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: cfg.SlogLevel()}))
			srv, err := newServer(ctx, cfg, log, serverTuning{})
			if err != nil {
				return err
			}
			return srv.run(ctx)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "address to listen on, host:port or :port (overrides ISSUESMITH_LISTEN_ADDR)")
	cmd.Flags().StringVar(&file, "config", "", "file of NAME=value settings (overrides ISSUESMITH_CONFIG_FILE; real variables still win)")
	return cmd
}

// serveEnviron is environ with the serve flags applied: --config names the
// settings file, --listen replaces the listen address.
func serveEnviron(environ []string, file, listen string) []string {
	out := slices.Clone(environ)
	if file != "" {
		out = append(out, config.FileVar+"="+file)
	}
	if listen != "" {
		out = append(out, config.EnvPrefix+"LISTEN_ADDR="+listen)
	}
	return out
}

// server is the wired App: every part is built in newServer, in the order
// the data flows.
type server struct {
	cfg     *config.Server
	log     *slog.Logger
	store   *store.Store
	engine  *workflow.Engine
	handler http.Handler
	ready   atomic.Bool
	// warnings are start-up checks that failed without stopping the start
	// (a model the server does not list); /readyz shows them.
	warnings []string
	closers  []io.Closer
}

// serverTuning holds the few knobs tests turn that operators do not: the
// zero value is production.
type serverTuning struct {
	githubWriteInterval time.Duration // 0: ghapp's default spacing of writes
	pollInterval        time.Duration // 0: the workflow's default job polling
	startTimeout        time.Duration // 0: defaultStartTimeout
}

// defaultStartTimeout bounds the start-up's calls out (database, GitHub):
// an unreachable host that swallows packets must stop the start with an
// error, not hang it. Migrations on a healthy database take seconds.
const defaultStartTimeout = time.Minute

// HTTP server timeouts: a request's headers and body must arrive within
// readTimeout (a trickled body is cut off and its connection closed), the
// answer within writeTimeout of the headers, and an idle keep-alive
// connection is closed after idleTimeout. GitHub sends a delivery at once
// and waits 10 s for the answer.
const (
	readTimeout  = 30 * time.Second
	writeTimeout = 60 * time.Second
	idleTimeout  = 90 * time.Second
)

// newServer constructs and checks every part: database (migrated), GitHub
// App, model, git cache, agents, workflow engine, webhook handler, metrics.
// Nothing runs until run.
func newServer(ctx context.Context, cfg *config.Server, log *slog.Logger, tune serverTuning) (*server, error) {
	log.Info("starting", "config", cfg)
	m := newMetrics()
	limit := cmp.Or(tune.startTimeout, defaultStartTimeout)
	sctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	st, err := store.OpenMigrated(sctx, cfg.DatabaseURL)
	if err != nil {
		return nil, startErr(ctx, sctx, limit, err)
	}
	s := &server{cfg: cfg, log: log, store: st, closers: []io.Closer{st}}
	app, botLogin, err := newGitHubApp(sctx, cfg, m, tune.githubWriteInterval)
	if err != nil {
		s.close()
		return nil, startErr(ctx, sctx, limit, err)
	}
	s.warnings = checkModels(sctx, cfg, log)
	ms, err := agents.NewModels(&cfg.Model)
	if err != nil {
		s.close()
		return nil, err
	}
	cache, err := repo.NewCache(filepath.Join(cfg.DataDir, "git"), repo.CacheOptions{Logger: log})
	if err != nil {
		s.close()
		return nil, err
	}
	sched, err := refreshSchedule(cfg)
	if err != nil {
		s.close()
		return nil, err
	}
	redeliverPass, redeliverSched, err := redeliverJob(cfg, app, st, newRedeliverMetrics(m.reg), log)
	if err != nil {
		s.close()
		return nil, err
	}
	s.engine, err = workflow.New(workflow.Deps{
		Store: st,
		GitHub: workflow.InstallationsFunc(func(ctx context.Context, id int64) (workflow.GitHub, error) {
			return app.Client(ctx, id)
		}),
		Git:        agents.NewGit(cache, app, botSignature(botLogin)),
		Explorer:   &agents.Explorer{Models: ms, Cache: st},
		Planner:    &agents.Planner{Models: ms},
		Coder:      serveCoder(cfg, ms),
		Summarizer: &agents.Summarizer{Models: ms, Cache: st},
	}, workflow.Options{
		BotLogin: botLogin, MaxWorkers: cfg.Workers, Logger: log, PollInterval: tune.pollInterval,
		Observe: m.job, Usage: m.usage, RefreshSchedule: sched,
		Redeliver: redeliverPass, RedeliverSchedule: redeliverSched,
	})
	if err != nil {
		s.close()
		return nil, err
	}
	hook, err := webhook.New(webhook.Options{
		Secret: []byte(cfg.WebhookSecret), MaxBody: cfg.WebhookMaxBody,
		Intake: s.engine, Authorizer: app,
		BotLogin: botLogin, Logger: log, Observe: m.delivery,
	})
	if err != nil {
		s.close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("POST /webhook", webhook.NewLimiter(hook, cfg.WebhookMaxInFlight, cfg.WebhookMaxBody, log,
		func(event, result string) { m.delivery(event, result, 0) }))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	s.handler = mux
	return s, nil
}

// startErr says when the start-up bound (sctx, limit), not the host or a
// stop (ctx), ended a call.
func startErr(ctx, sctx context.Context, limit time.Duration, err error) error {
	if errors.Is(sctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return fmt.Errorf("%w (start-up took longer than %v: is the host reachable?)", err, limit)
	}
	return err
}

func newGitHubApp(ctx context.Context, cfg *config.Server, m *metrics, writeInterval time.Duration) (*ghapp.App, string, error) {
	key, err := cfg.Key()
	if err != nil {
		return nil, "", err
	}
	app, err := ghapp.NewApp(ghapp.AppConfig{AppID: cfg.AppID, PrivateKey: key, BaseURL: cfg.GitHubURL,
		BotLogin: cfg.BotLogin, Observe: m.githubCall, WriteInterval: writeInterval})
	if err != nil {
		return nil, "", err
	}
	// GET /app with the App's JWT, even when the bot login is configured:
	// a key GitHub refuses, or an App id that is not this key's, must stop
	// the start, not the first run.
	gh, _, err := app.AppClient().Apps.Get(ctx, "")
	if err != nil {
		return nil, "", fmt.Errorf("check the App's key with GitHub (GET /app; check %sAPP_ID and the private key): %w",
			config.EnvPrefix, err)
	}
	login := gh.GetSlug() + "[bot]"
	if gh.GetSlug() == "" {
		return nil, "", errors.New("check the App's key with GitHub (GET /app): GitHub returned no slug")
	}
	if cfg.BotLogin != "" && !strings.EqualFold(cfg.BotLogin, login) {
		return nil, "", fmt.Errorf("%sBOT_LOGIN is %q but GitHub says this App's bot is %q", config.EnvPrefix, cfg.BotLogin, login)
	}
	return app, login, nil
}

// checkModels asks the model server's GET /models whether each role's
// model is there. A miss is a warning, not a stop (the server may list
// models lazily): it is logged loudly and /readyz shows it.
func checkModels(ctx context.Context, cfg *config.Server, log *slog.Logger) []string {
	lc, err := cfg.Model.LLM()
	if err != nil {
		return []string{err.Error()}
	}
	client, err := llm.NewClient(lc)
	if err != nil {
		return []string{err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	var warnings []string
	seen := map[string]bool{}
	for _, role := range []llm.Role{llm.RoleExplorer, llm.RoleObserver, llm.RolePlanner, llm.RoleCoder, llm.RoleSummarizer} {
		name := client.ModelName(role)
		if seen[name] {
			continue
		}
		seen[name] = true
		if err := client.CheckListed(ctx, role); err != nil {
			w := "model check: " + err.Error()
			log.Error("MODEL CHECK FAILED: runs using this model will fail", "role", role, "model", name, "err", err)
			warnings = append(warnings, w)
		}
	}
	return warnings
}

func botSignature(login string) repo.Signature {
	return repo.Signature{Name: login, Email: login + "@users.noreply.github.com"}
}

// readyz answers 200 once jobs are being worked and the database answers.
func (s *server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if !s.ready.Load() {
		http.Error(w, "starting or stopping", http.StatusServiceUnavailable)
		return
	}
	if err := s.store.Ping(ctx); err != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ready")
	for _, warn := range s.warnings {
		fmt.Fprintln(w, "warning:", warn)
	}
}

// run serves until ctx ends, then shuts down gracefully: stop accepting
// deliveries, let running steps reach a checkpoint (up to the shutdown
// timeout), close the database.
func (s *server) run(ctx context.Context) error {
	l, err := net.Listen("tcp", s.cfg.ListenAddr)
	if err != nil {
		s.close()
		return fmt.Errorf("listen on %s: %w", s.cfg.ListenAddr, err)
	}
	return s.serve(ctx, l)
}

func (s *server) serve(ctx context.Context, l net.Listener) error {
	defer s.close()
	if err := s.engine.Start(ctx); err != nil {
		return err
	}
	hs := &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: readTimeout, WriteTimeout: writeTimeout, IdleTimeout: idleTimeout}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(l) }()
	s.ready.Store(true)
	s.log.Info("serving", "addr", l.Addr().String())
	select {
	case err := <-errc:
		s.ready.Store(false)
		s.stopEngine()
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	s.ready.Store(false)
	s.log.Info("shutting down: no new deliveries; waiting for running steps", "timeout", s.cfg.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	herr := hs.Shutdown(sctx)
	s.stopEngine()
	if herr != nil && !errors.Is(herr, http.ErrServerClosed) {
		return fmt.Errorf("http shutdown: %w", herr)
	}
	s.log.Info("stopped")
	return nil
}

func (s *server) stopEngine() {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := s.engine.Stop(ctx); err != nil {
		s.log.Warn("jobs were cancelled at shutdown; they resume on the next start", "err", err)
	}
}

func (s *server) close() {
	for _, c := range s.closers {
		if err := c.Close(); err != nil {
			s.log.Warn("close", "err", err)
		}
	}
}

var _ summaries.Cache = (*store.Store)(nil)

// refreshSchedule is the engine's periodic summary refresh from
// ISSUESMITH_SUMMARY_REFRESH: nil when it is "off".
func refreshSchedule(cfg *config.Server) (river.PeriodicSchedule, error) {
	if cfg.SummaryRefresh == config.ScheduleOff || cfg.SummaryRefresh == "" {
		return nil, nil
	}
	s, err := summaries.ParseSchedule(cfg.SummaryRefresh)
	if err != nil {
		return nil, err
	}
	return s, nil
}
