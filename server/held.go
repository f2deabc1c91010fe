package server

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/internal/spool"
	"github.com/issuesmith/issuesmith/webhook"
)

// heldDrainEvery is how often the held deliveries are offered to the
// database while some wait: they are recorded within about this long of
// the database's return.
const heldDrainEvery = time.Second

// openHold opens the spool of deliveries the database could not record
// (config.Server.HoldDir; nil when "off") and exports how many wait.
func openHold(cfg *config.Server, reg prometheus.Registerer) (*spool.Spool, error) {
	if strings.EqualFold(cfg.HoldDir, "off") || cfg.HoldDir == "" {
		return nil, nil
	}
	sp, err := spool.Open(cfg.HoldDir, cfg.HoldMax)
	if err != nil {
		return nil, fmt.Errorf("held deliveries (%sHOLD_DIR): %w", config.EnvPrefix, err)
	}
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "issuesmith_webhook_held",
		Help: "Deliveries answered while the database was away, waiting on disk to be recorded.",
	}, func() float64 { return float64(sp.Len()) }))
	return sp, nil
}

// drainHeld records the held deliveries through intake whenever some wait
// and the database takes them, until ctx ends; a start with deliveries
// left by the last process drains them first.
func drainHeld(ctx context.Context, sp *spool.Spool, intake webhook.Intake, every time.Duration, log *slog.Logger) {
	if sp == nil {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if sp.Len() > 0 {
			t0 := time.Now()
			n, err := webhook.Drain(ctx, sp, intake)
			switch {
			case n > 0:
				log.Info("held deliveries recorded", "recorded", n, "waiting", sp.Len(),
					"took", time.Since(t0).Round(time.Millisecond), "err", err)
			case err != nil && ctx.Err() == nil:
				log.Debug("held deliveries still wait for the database", "waiting", sp.Len(), "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
