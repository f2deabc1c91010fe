package cievidence

import (
	"slices"
	"strings"
)

// Conclusions of a completed check run, as GitHub reports them.
const (
	Success        = "success"
	Failure        = "failure"
	TimedOut       = "timed_out"
	Neutral        = "neutral"
	Skipped        = "skipped"
	Cancelled      = "cancelled"
	ActionRequired = "action_required"
	Stale          = "stale"
)

// Check is one check run as the evidence needs it.
type Check struct {
	// ID is the check run's id (for Actions also the job's id).
	ID int64
	// Name is the check run's name (for Actions: the job's name).
	Name string
	// Actions is set for a GitHub Actions job (it has a job log).
	Actions bool
	// AnnotationCount is how many annotations the check run has.
	AnnotationCount int
	// Status is "queued", "in_progress" or "completed".
	Status string
	// Conclusion is set once Status is "completed".
	Conclusion string
	// Title, Summary and Text are the check run's output.
	Title, Summary, Text string
	// Annotations are the check run's annotations.
	Annotations []Annotation
	// Log is the job log for a GitHub Actions check ("" when none was read).
	Log string
}

// Annotation is one check annotation (a file and line with a message).
type Annotation struct {
	Path      string
	StartLine int
	Level     string // "failure", "warning" or "notice"
	Title     string
	Message   string
}

// Failed reports whether c concluded in a way the bot acts on: failure or
// timed_out. Neutral, skipped and cancelled runs never count.
func (c Check) Failed() bool {
	return c.Status == "completed" && (c.Conclusion == Failure || c.Conclusion == TimedOut)
}

// Decision is what Decide makes of a head commit's checks.
type Decision struct {
	// Complete is true when every check run of the head commit completed.
	Complete bool
	// Ours are the failed checks that do not also fail on the base commit,
	// sorted by name: the bot's to fix.
	Ours []Check
	// PreExisting are the failed checks that fail on the base commit too:
	// not the bot's; the PR says so once.
	PreExisting []Check
}

// Act reports whether a fix round should start: CI finished and at least
// one failure is the bot's.
func (d Decision) Act() bool { return d.Complete && len(d.Ours) > 0 }

// Decide classifies the head commit's checks against the base commit's.
// Until every head check completed nothing is classified (a failing check
// may be followed by others that explain it). A check name that fails on
// base as well is pre-existing; a check absent from base, or passing there,
// is the bot's. When a name appears several times (re-runs), the last entry
// of each list wins, as GitHub lists the newest run last after sorting.
func Decide(head, base []Check) Decision {
	var d Decision
	if len(head) == 0 {
		return d
	}
	for _, c := range head {
		if c.Status != "completed" {
			return d
		}
	}
	d.Complete = true
	baseFailed := map[string]bool{}
	for _, c := range latest(base) {
		baseFailed[c.Name] = c.Failed()
	}
	for _, c := range latest(head) {
		if !c.Failed() {
			continue
		}
		if baseFailed[c.Name] {
			d.PreExisting = append(d.PreExisting, c)
		} else {
			d.Ours = append(d.Ours, c)
		}
	}
	return d
}

// latest keeps the last check of each name, sorted by name.
func latest(cs []Check) []Check {
	byName := map[string]Check{}
	for _, c := range cs {
		byName[c.Name] = c
	}
	out := make([]Check, 0, len(byName))
	for _, c := range byName {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Check) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Names returns the checks' names joined for a commit message or a comment
// ("go test, lint").
func Names(cs []Check) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}
