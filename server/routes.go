package server

import (
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/issuesmith/issuesmith/webhook"
)

// routes builds the webhook handler behind its limiter and the HTTP routes.
func (s *Server) routes(m *metrics, hasApp bool, botLogin string, forge *giteaForge) error {
	cfg, log := s.cfg, s.log
	var err error
	if s.held, err = openHold(cfg, m.reg); err != nil {
		return err
	}
	var hold webhook.Holder
	if s.held != nil {
		hold = s.held
	}
	mux := http.NewServeMux()
	if hasApp {
		hook, err := webhook.New(webhook.Options{
			Hold:   hold,
			Secret: []byte(cfg.WebhookSecret), MaxBody: cfg.WebhookMaxBody,
			Intake:   lateIntake{s},
			BotLogin: botLogin, Bots: cfg.Limits.Bots, Logger: log, Observe: func(event, result string, took time.Duration) {
				m.delivery(event, result, took)
				s.recovery.observe(result)
			},
		})
		if err != nil {
			return err
		}
		mux.Handle("POST /webhook", webhook.NewLimiter(hook, cfg.WebhookMaxInFlight, cfg.WebhookMaxBody, log,
			func(event, result string) { m.delivery(event, result, 0) }))
	}
	if forge != nil {
		giteaHook, err := webhook.New(webhook.Options{
			Hold: hold, Secret: []byte(cfg.GiteaWebhookSecret), MaxBody: cfg.WebhookMaxBody, Intake: lateIntake{s},
			BotLogin: forge.bot, Bots: cfg.Limits.Bots, Logger: log.With("forge", "gitea"),
			Gitea: &webhook.GiteaOptions{InstallationID: GiteaInstallation},
			Observe: func(event, result string, took time.Duration) {
				m.delivery("gitea_"+event, result, took)
				s.recovery.observe(result)
			},
		})
		if err != nil {
			return err
		}
		mux.Handle("POST /webhook/gitea", webhook.NewLimiter(giteaHook, cfg.WebhookMaxInFlight, cfg.WebhookMaxBody, log,
			func(event, result string) { m.delivery("gitea_"+event, result, 0) }))
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	pages, off, err := sessionsPages(cfg, lateStore{s}, log)
	if err != nil {
		return err
	}
	s.warnings = append(s.warnings, off...)
	for _, p := range pages {
		mux.Handle(p.base, p.h)
		mux.Handle(p.base+"/", p.h)
	}
	s.handler = mux
	return nil
}
