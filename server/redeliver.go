package server

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/giteapoll"
	"github.com/issuesmith/issuesmith/redeliver"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/summaries"
	"github.com/issuesmith/issuesmith/webhook"
)

// redeliverMetrics are the reconciler's series: redeliveries asked (a
// counter) and what the last pass saw in its window (gauges: a failed
// delivery stays in the window for several passes).
type redeliverMetrics struct {
	asked    prometheus.Counter
	lastPass *prometheus.GaugeVec
}

func newRedeliverMetrics(reg *prometheus.Registry) *redeliverMetrics {
	r := &redeliverMetrics{
		asked: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "issuesmith_redeliveries_asked_total", Help: "Webhook redeliveries the bot asked GitHub for.",
		}),
		lastPass: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "issuesmith_redeliver_last_pass",
			Help: "Deliveries in the last reconciliation pass's window: failed, recorded (failed but recorded), recovered, refused (4xx), given_up, deferred.",
		}, []string{"what"}),
	}
	reg.MustRegister(r.asked, r.lastPass)
	return r
}

func (r *redeliverMetrics) observe(rep redeliver.Report) {
	r.asked.Add(float64(len(rep.Asked)))
	for what, n := range map[string]int{"failed": rep.Failed, "recorded": rep.Recorded, "recovered": rep.Recovered,
		"refused": rep.Refused, "given_up": rep.GivenUp, "deferred": rep.Deferred} {
		r.lastPass.WithLabelValues(what).Set(float64(n))
	}
}

// redeliverJob is the engine's periodic reconciliation (workflow.Options
// Redeliver and RedeliverSchedule) from ISSUESMITH_REDELIVER: nils when off.
// st is the database, asked when a pass runs (only the engine runs one).
func redeliverJob(cfg *config.Server, app *ghapp.App, st func() *store.Store, m *redeliverMetrics, log *slog.Logger) (
	func(context.Context) error, river.PeriodicSchedule, error) {
	if app == nil || cfg.Redeliver == config.ScheduleOff || cfg.Redeliver == "" {
		return nil, nil, nil // no GitHub App: no GitHub delivery log to reconcile
	}
	sched, err := summaries.ParseSchedule(cfg.Redeliver)
	if err != nil {
		return nil, nil, err
	}
	pass := func(ctx context.Context) error {
		rep, err := redeliver.Pass(ctx, app, st(), redeliver.Options{Since: time.Now().Add(-cfg.RedeliverSince)})
		m.observe(rep)
		log.Info("webhook reconciliation", "attempts", rep.Attempts, "failed", rep.Failed, "recorded", rep.Recorded,
			"recovered", rep.Recovered, "asked", len(rep.Asked), "deferred", rep.Deferred, "refused", rep.Refused,
			"given_up", rep.GivenUp, "err", err)
		return err
	}
	return pass, sched, nil
}

// recoveryCheck is how often recovery looks whether the database is back.
const recoveryCheck = 5 * time.Second

// recovery asks for a reconciliation pass as soon as the database answers
// again after a delivery could not be recorded (answered 503 for a failed
// write), instead of waiting for the next scheduled pass (every 5 minutes by
// default): the deliveries an outage cost come back within seconds of its
// end. A nil *recovery does nothing.
type recovery struct {
	missed atomic.Bool
	ping   func(context.Context) error
	every  time.Duration
	log    *slog.Logger
}

// observe notes a delivery's result (webhook.Options.Observe).
func (r *recovery) observe(result string) {
	if r != nil && result == webhook.ResultError {
		r.missed.Store(true)
	}
}

// run checks every r.every until ctx ends: once a delivery was missed and
// the database answers, it asks for a pass now (the pass is unique: one
// already waiting or running absorbs it).
func (r *recovery) run(ctx context.Context, passNow func(context.Context) error) {
	if r == nil {
		return
	}
	t := time.NewTicker(r.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !r.missed.Load() || r.ping(ctx) != nil {
			continue
		}
		if err := passNow(ctx); err != nil {
			r.log.Warn("could not ask for a reconciliation pass after the outage; the schedule will", "err", err)
			continue
		}
		r.missed.Store(false)
		r.log.Info("the database answers again after missed deliveries: reconciliation pass asked")
	}
}

// withGiteaPoll adds the Gitea server's polling pass (giteapoll) to the
// periodic reconciliation, on the same schedule and window: Gitea keeps no
// delivery log to reconcile from, so the pass reads what changed. Both
// passes run; the first failure is returned after both ran.
func withGiteaPoll(cfg *config.Server, forge *giteaForge, intake webhook.Intake, github func(context.Context) error,
	sched river.PeriodicSchedule, log *slog.Logger) (func(context.Context) error, river.PeriodicSchedule, error) {
	if forge == nil || cfg.Redeliver == config.ScheduleOff || cfg.Redeliver == "" {
		return github, sched, nil
	}
	if sched == nil {
		var err error
		if sched, err = summaries.ParseSchedule(cfg.Redeliver); err != nil {
			return nil, nil, err
		}
	}
	pass := func(ctx context.Context) error {
		var gerr error
		if github != nil {
			gerr = github(ctx)
		}
		rep, err := giteapoll.Pass(ctx, forge.client, intake, giteapoll.Options{Since: time.Now().Add(-cfg.RedeliverSince),
			Bot: forge.bot, InstallationID: GiteaInstallation})
		log.Info("gitea poll", "repos", rep.Repos, "issues", rep.Issues, "comments", rep.Comments,
			"pull_requests", rep.PullRequests, "accepted", rep.Accepted, "duplicates", rep.Duplicates, "err", err)
		return errors.Join(gerr, err)
	}
	return pass, sched, nil
}
