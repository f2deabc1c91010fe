package summaries

import (
	"context"
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
)

// Schedule is a cron schedule for periodic summary refresh: five fields
// ("*/30 * * * *") or a descriptor ("@hourly", "@every 10m"), as robfig/cron
// parses them. It has the Next method River's periodic jobs take.
type Schedule struct {
	spec  string
	sched cron.Schedule
}

// ParseSchedule parses a cron spec. A bad spec is an error naming it.
func ParseSchedule(spec string) (*Schedule, error) {
	p := cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
	s, err := p.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("parse refresh schedule %q: %w", spec, err)
	}
	return &Schedule{spec: spec, sched: s}, nil
}

// Next returns the first activation strictly after t.
func (s *Schedule) Next(t time.Time) time.Time { return s.sched.Next(t) }

// String returns the spec the schedule was parsed from.
func (s *Schedule) String() string { return s.spec }

// RefreshOn refreshes ix from src at every activation of sched until ctx
// ends, calling report (when set) with each result. A failed refresh is
// reported and the loop goes on: the next tick may succeed. It returns
// ctx's error.
func (ix *Index) RefreshOn(ctx context.Context, sched *Schedule, src Source, report func(Stats, error)) error {
	for {
		now := time.Now()
		t := time.NewTimer(sched.Next(now).Sub(now))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		st, err := ix.Refresh(ctx, src)
		if report != nil {
			report(st, err)
		}
	}
}
