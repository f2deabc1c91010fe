package config

import "github.com/robfig/cron/v3"

// ScheduleOff is the Server.SummaryRefresh value that switches the
// periodic summary refresh off.
const ScheduleOff = "off"

// validSchedule reports whether spec is ScheduleOff or a cron schedule as
// summaries.ParseSchedule reads it (five fields or a descriptor).
func validSchedule(spec string) bool {
	if spec == ScheduleOff {
		return true
	}
	p := cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
	_, err := p.Parse(spec)
	return err == nil
}
