package server

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
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/agents"
	"github.com/issuesmith/issuesmith/budget"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/internal/spool"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/summaries"
	"github.com/issuesmith/issuesmith/workflow"
)

// Server is the wired App: every part is built in New, in the order the
// data flows.
type Server struct {
	cfg *config.Server
	log *slog.Logger
	// db and eng are the database and the workflow engine on it: set by
	// New when the database answers at start, else by connect once it
	// does (database.go); nil until then.
	db  atomic.Pointer[store.Store]
	eng atomic.Pointer[workflow.Engine]
	// build makes the engine on a database with every other part New made.
	build func(*store.Store) (*workflow.Engine, error)
	gate  *budget.Gate
	// dbErr is why the database did not open yet (/readyz), nil once it did.
	dbErr   atomic.Pointer[string]
	handler http.Handler
	tune    Tuning
	ready   atomic.Bool
	// warnings are start-up checks that failed without stopping the start
	// (a model the server does not list); /readyz shows them.
	warnings []string
	// probe holds the start-up model probe's lines once it ended (probe.go);
	// probed is closed then.
	probe   atomic.Pointer[[]string]
	probed  chan struct{}
	mu      sync.Mutex // guards closers
	closers []io.Closer
	// sessions are the options of each run's session recorder (the
	// workflow's jobs open the run's session; see sessions.go).
	sessions session.Options
	// recovery asks for a reconciliation pass once the database answers
	// again after a delivery could not be recorded (nil: reconciliation off).
	recovery *recovery
	// held keeps the deliveries the database could not record until it
	// answers again (nil: HOLD_DIR=off; held.go).
	held *spool.Spool
	// traces is /readyz's line about the OpenTelemetry export ("" when
	// off; traces.go).
	traces string
}

// Tuning holds the few knobs tests and demos turn that operators do not:
// the zero value is production.
type Tuning struct {
	GitHubWriteInterval time.Duration // 0: ghapp's default spacing of writes; <0: none
	PollInterval        time.Duration // 0: the workflow's default job polling
	StartTimeout        time.Duration // 0: defaultStartTimeout
	ReadTimeout         time.Duration // 0: readTimeout (tests shorten it)
	// LeaseTTL and RescueAfter: 0 takes the workflow's defaults; the crash
	// tests on PostgreSQL shorten them so a killed process's jobs are
	// rescued within seconds (plus River's 30 s rescue interval).
	LeaseTTL    time.Duration
	RescueAfter time.Duration
	// Now is the clock of the spending limits' day and month windows
	// (tests move it past a window; nil: time.Now).
	Now func() time.Time
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

// New constructs and checks every part: database (migrated), GitHub
// App, model, git cache, agents, workflow engine, webhook handler, metrics.
// A database that does not answer does not stop the start (a DSN that does
// not parse does): Serve then answers at once, /readyz says why it is not
// ready, deliveries are held (HOLD_DIR), and the engine is built and
// started once the database answers. Nothing runs until Run or Serve.
func New(ctx context.Context, cfg *config.Server, log *slog.Logger, tune Tuning) (*Server, error) {
	log.Info("starting", "config", cfg)
	if err := store.CheckDSN(cfg.DatabaseURL); err != nil {
		return nil, err
	}
	m := newMetrics()
	s := &Server{cfg: cfg, log: log, tune: tune, probed: make(chan struct{})}
	if err := s.assemble(ctx, m); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.open(ctx); err != nil {
		if ctx.Err() != nil {
			s.Close()
			return nil, err
		}
		msg := err.Error()
		s.dbErr.Store(&msg)
		log.Warn("the database does not answer; serving without it until it does (deliveries are held)", "err", err)
	}
	return s, nil
}

// assemble builds every part but the database's: GitHub App, models, git
// cache, agents and the engine's recipe (build), webhook, HTTP routes.
func (s *Server) assemble(ctx context.Context, m *metrics) error {
	cfg, log, tune := s.cfg, s.log, s.tune
	limit := cmp.Or(tune.StartTimeout, defaultStartTimeout)
	sctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var app *ghapp.App
	var botLogin string
	var err error
	if cfg.HasApp() {
		if app, botLogin, err = newGitHubApp(sctx, cfg, m, tune.GitHubWriteInterval); err != nil {
			return startErr(ctx, sctx, limit, err)
		}
	}
	forge, err := newGitea(sctx, cfg, int64(tune.GitHubWriteInterval))
	if err != nil {
		return startErr(ctx, sctx, limit, err)
	}
	aliases := forge.botAliases()
	if app == nil { // Gitea alone: its user is the bot
		botLogin, aliases = forge.bot, nil
	}
	s.warnings = checkModels(sctx, cfg, log)
	s.gate = &budget.Gate{Now: tune.Now, Log: log, Charged: m.charged}
	ms, err := agents.NewGatedModels(&cfg.Model, s.gate)
	if err != nil {
		return err
	}
	cache, err := repo.NewCache(filepath.Join(cfg.DataDir, "git"), repo.CacheOptions{Logger: log})
	if err != nil {
		return err
	}
	caches, err := Caches(cfg)
	if err != nil {
		return err
	}
	sched, err := refreshSchedule(cfg)
	if err != nil {
		return err
	}
	redeliverPass, redeliverSched, err := redeliverJob(cfg, app, s.store, newRedeliverMetrics(m.reg), log)
	if err != nil {
		return err
	}
	redeliverPass, redeliverSched, err = withGiteaPoll(cfg, forge, lateIntake{s}, redeliverPass, redeliverSched, log)
	if err != nil {
		return err
	}
	if redeliverPass != nil {
		s.recovery = &recovery{ping: s.ping, every: recoveryCheck, log: log}
	}
	s.sessions = sessionOptions(cfg, m.reg, log)
	exp, line, err := traces(ctx, cfg, log)
	if err != nil {
		return err
	}
	if exp != nil {
		s.sessions.Wrap, s.traces = exp.Wrap, line
		s.closers = append(s.closers, exporterCloser{exp})
	}
	s.build = func(st *store.Store) (*workflow.Engine, error) {
		return workflow.New(workflow.Deps{
			Store:      st,
			GitHub:     installations(app, forge),
			Git:        agents.NewGit(cache, credentials{app: agents.AppCredentials{App: app}, gitea: forge}, botSignature(botLogin)),
			Explorer:   &agents.Explorer{Models: ms, Cache: st},
			Planner:    &agents.Planner{Models: ms},
			Coder:      Coder(cfg, ms, caches),
			Summarizer: &agents.Summarizer{Models: ms, Cache: st},
			Forks:      forks(cfg, app),
			Budget:     s.gate,
			ForgeOf:    forge.forgeOf(),
		}, workflow.Options{
			Limits:   &cfg.Limits,
			BotLogin: botLogin, BotAliases: aliases, MaxWorkers: cfg.Workers, Logger: log, PollInterval: tune.PollInterval,
			LeaseTTL: tune.LeaseTTL, RescueAfter: tune.RescueAfter,
			Observe: m.job, Usage: m.usage, RefreshSchedule: sched,
			Redeliver: redeliverPass, RedeliverSchedule: redeliverSched,
			Preflight: func(context.Context) error { return CheckSpace(cfg) },
			Sessions:  runSessions(cfg, s.sessions),
			ReplicaID: replicaID(cfg),
		})
	}
	return s.routes(m, app != nil, botLogin, forge)
}

// startErr says when the start-up bound (sctx, limit), not the host or a
// stop (ctx), ended a call.
func startErr(ctx, sctx context.Context, limit time.Duration, err error) error {
	if errors.Is(sctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return fmt.Errorf("%w (start-up took longer than %v: is the host reachable?)", err, limit)
	}
	return err
}

// readyz answers 200 once jobs are being worked and the database answers.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if !s.ready.Load() {
		msg := "starting or stopping"
		if why := s.dbErr.Load(); why != nil {
			msg = "waiting for the database: " + *why
		}
		if s.held != nil && s.held.Len() > 0 {
			msg += fmt.Sprintf("\nheld deliveries: %d wait to be recorded", s.held.Len())
		}
		http.Error(w, msg, http.StatusServiceUnavailable)
		return
	}
	if err := s.ping(ctx); err != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ready")
	for _, warn := range s.warnings {
		fmt.Fprintln(w, "warning:", warn)
	}
	if s.held != nil && s.held.Len() > 0 {
		fmt.Fprintf(w, "held deliveries: %d wait to be recorded\n", s.held.Len())
	}
	sandboxLines(w, s.cfg)
	if s.traces != "" {
		fmt.Fprintln(w, s.traces)
	}
	for _, line := range s.probeLines() {
		fmt.Fprintln(w, "model probe:", line)
	}
}

// Run listens on the configured address and serves until ctx ends, then shuts down gracefully: stop accepting
// deliveries, let running steps reach a checkpoint (up to the shutdown
// timeout), close the database.
func (s *Server) Run(ctx context.Context) error {
	l, err := net.Listen("tcp", s.cfg.ListenAddr)
	if err != nil {
		s.Close()
		return fmt.Errorf("listen on %s: %w", s.cfg.ListenAddr, err)
	}
	return s.Serve(ctx, l)
}

// Serve serves on l until ctx ends (see Run); it closes the server. A
// server New built without its database answers at once, not ready, and
// starts the engine once the database answers (connect).
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	defer s.Close()
	pctx, stopBackground := context.WithCancel(ctx)
	var background sync.WaitGroup
	defer background.Wait()
	defer stopBackground()
	errc := make(chan error, 2)
	started := func() {
		background.Go(func() { pruneSessions(pctx, s.store(), s.cfg.Sessions.Retention, s.log) })
		s.ready.Store(true)
	}
	eng := s.engine()
	if eng != nil {
		if err := eng.Start(ctx); err != nil {
			return err
		}
	} else {
		background.Go(func() { s.connect(pctx, started, func(err error) { errc <- err }) })
	}
	background.Go(func() { s.recovery.run(pctx, s.redeliverNow) })
	background.Go(func() { drainHeld(pctx, s.held, lateIntake{s}, heldDrainEvery, s.log) })
	hs := &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: cmp.Or(s.tune.ReadTimeout, readTimeout), WriteTimeout: writeTimeout, IdleTimeout: idleTimeout}
	go func() { errc <- fmt.Errorf("http server: %w", hs.Serve(l)) }()
	waitProbe := s.startProbe(pctx)
	defer waitProbe()
	if eng != nil {
		started()
	}
	s.log.Info("serving", "addr", l.Addr().String(), "ready", s.ready.Load())
	select {
	case err := <-errc:
		s.ready.Store(false)
		_ = hs.Close()
		stopBackground()
		background.Wait()
		s.stopEngine()
		return err
	case <-ctx.Done():
	}
	s.ready.Store(false)
	s.log.Info("shutting down: no new deliveries; waiting for running steps", "timeout", s.cfg.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	herr := hs.Shutdown(sctx)
	stopBackground()
	background.Wait()
	s.stopEngine()
	if herr != nil && !errors.Is(herr, http.ErrServerClosed) {
		return fmt.Errorf("http shutdown: %w", herr)
	}
	s.log.Info("stopped")
	return nil
}

func (s *Server) stopEngine() {
	eng := s.engine()
	if eng == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := eng.Stop(ctx); err != nil {
		s.log.Warn("jobs were cancelled at shutdown; they resume on the next start", "err", err)
	}
}

// Close releases what New opened (Run and Serve close it themselves).
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
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

// replicaID is the configured replica ID, else host name and listen port:
// two live processes cannot listen on one port of one host, and a restart
// keeps both. An ephemeral port (":0") gives none.
func replicaID(cfg *config.Server) string {
	if cfg.ReplicaID != "" {
		return cfg.ReplicaID
	}
	_, port, err := net.SplitHostPort(cfg.ListenAddr)
	if err != nil || port == "" || port == "0" {
		return ""
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		return ""
	}
	id := host + ":" + port
	if len(id) > 100 { // River's limit
		id = id[len(id)-100:]
	}
	return id
}
