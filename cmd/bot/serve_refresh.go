package main

import (
	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/summaries"
)

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
