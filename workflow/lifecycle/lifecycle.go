package lifecycle

import (
	"errors"
	"fmt"
	"slices"
)

// Stages of a run, in the order a run goes through them. Approval is a
// wait, not a job. Revise, Mention and CI are rounds on the run's pull
// request, and Report is the job that says a wait or an end on the forge
// (the progress comment, the trigger label); none of them moves a run.
const (
	Explore  = "explore"
	Plan     = "plan"
	Approval = "approval"
	Code     = "code"
	PR       = "pr"
	Revise   = "revise"
	Mention  = "mention"
	CI       = "ci"
	Report   = "cancel" // the value older releases queued, read the same
)

// order is the run's path; its index is a stage's progress.
var order = []string{Explore, Plan, Approval, Code, PR}

// Index is stage's place on the run's path, -1 for a stage off it.
func Index(stage string) int { return slices.Index(order, stage) }

// Path is the run's stages in order (a copy).
func Path() []string { return slices.Clone(order) }

// States of a run. A run is open while active or waiting.
const (
	Active    = "active"    // a job works on it or is queued
	Waiting   = "waiting"   // waits for a person (approval, answers, a fix)
	Done      = "done"      // ended with a pull request
	Failed    = "failed"    // ended with a comment saying why
	Cancelled = "cancelled" // unlabelled, closed, /stop, uninstalled
)

// Open reports whether state is one a run has not ended in.
func Open(state string) bool { return state == Active || state == Waiting }

// Status is the part of a run its life decides.
type Status struct {
	Stage  string
	State  string
	Step   string // what it does or waits for, in a person's words
	Reason string // why it ended, when it failed or was cancelled
}

// Kind is what a stage's result asks of the run.
type Kind uint8

// The kinds of Outcome.
const (
	Stay   Kind = iota // nothing about the run changes
	Start              // a person's request, or a resume: run Stage from now on
	Step               // within its job: the run is at Stage, doing Step
	Next               // hand over: Stage runs next, as its own job
	Wait               // wait for a person at Stage
	End                // the run ended in State
	Merged             // the ended run's pull request was merged: done
	Closed             // the ended run's pull request was closed unmerged: cancelled
)

var kindNames = [...]string{"stay", "start", "step", "next", "wait", "end", "merged", "closed"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Outcome is what a stage (or a person's request) decided for the run.
type Outcome struct {
	Kind   Kind
	Stage  string
	State  string // End: Done, Failed or Cancelled
	Step   string
	Reason string
}

// StartAt is a request to run stage (a label, a command, a resume).
func StartAt(stage string) Outcome { return Outcome{Kind: Start, Stage: stage} }

// StepAt records that the run is at stage doing step.
func StepAt(stage, step string) Outcome { return Outcome{Kind: Step, Stage: stage, Step: step} }

// NextStage hands the run to stage, saying step meanwhile.
func NextStage(stage, step string) Outcome { return Outcome{Kind: Next, Stage: stage, Step: step} }

// WaitAt parks the run at stage until a person acts; step says for what.
func WaitAt(stage, step string) Outcome { return Outcome{Kind: Wait, Stage: stage, Step: step} }

// EndAs ends the run in state (Done, Failed or Cancelled) with reason;
// step is the last line shown ("" keeps the current one).
func EndAs(state, reason, step string) Outcome {
	return Outcome{Kind: End, State: state, Reason: reason, Step: step}
}

// MergedPR marks an ended run whose pull request was merged as done.
func MergedPR(step string) Outcome { return Outcome{Kind: Merged, Step: step} }

// ClosedPR marks an ended run whose pull request was closed without a
// merge as cancelled, with reason.
func ClosedPR(reason string) Outcome { return Outcome{Kind: Closed, Reason: reason} }

// Errors of Transition.
var (
	// ErrEnded: only a Start or a Merged moves a run that has ended.
	ErrEnded = errors.New("the run has ended")
	// ErrInvalid: the outcome names no stage, or a stage or state that
	// does not fit its kind.
	ErrInvalid = errors.New("invalid outcome")
)

// Transition is the one place a run's stage and state change: the Status
// after o, or an error that leaves the run as it was.
func Transition(s Status, o Outcome) (Status, error) {
	if err := check(s, o); err != nil {
		return s, err
	}
	switch o.Kind {
	case Start:
		s.Stage, s.State, s.Reason = o.Stage, Active, ""
	case Step, Next:
		s.Stage, s.State, s.Step = o.Stage, Active, o.Step
	case Wait:
		s.Stage, s.State, s.Step = o.Stage, Waiting, o.Step
	case End:
		s.State, s.Reason = o.State, o.Reason
		if o.State == Done {
			s.Reason = ""
		}
		if o.Step != "" {
			s.Step = o.Step
		}
	case Merged:
		s.State, s.Reason, s.Step = Done, "", o.Step
	case Closed:
		s.State, s.Reason = Cancelled, o.Reason
	}
	return s, nil
}

func check(s Status, o Outcome) error {
	switch o.Kind {
	case Stay:
		return nil
	case Start:
		if Index(o.Stage) < 0 || o.Stage == Approval {
			return fmt.Errorf("%w: a run cannot start at %q", ErrInvalid, o.Stage)
		}
		return nil
	case Merged, Closed:
		if Open(s.State) {
			return fmt.Errorf("%w: an open run's pull request is %s by its run, not for it", ErrInvalid, o.Kind)
		}
		return nil
	}
	if !Open(s.State) {
		return fmt.Errorf("%w (%s): cannot %s", ErrEnded, s.State, o.Kind)
	}
	switch o.Kind {
	case Step, Next, Wait:
		if Index(o.Stage) < 0 {
			return fmt.Errorf("%w: %s at %q, a stage off the run's path", ErrInvalid, o.Kind, o.Stage)
		}
		if o.Kind == Next && (o.Stage == Approval || Index(o.Stage) <= Index(s.Stage) && o.Stage != s.Stage) {
			return fmt.Errorf("%w: next %q after %q", ErrInvalid, o.Stage, s.Stage)
		}
	case End:
		if o.State != Done && o.State != Failed && o.State != Cancelled {
			return fmt.Errorf("%w: end as %q", ErrInvalid, o.State)
		}
	default:
		return fmt.Errorf("%w: kind %d", ErrInvalid, o.Kind)
	}
	return nil
}

// Reported reports whether the forge must be told of o once it is saved:
// a wait or an end is said by the run's report job.
func Reported(o Outcome) bool {
	return o.Kind == Wait || o.Kind == End || o.Kind == Merged || o.Kind == Closed
}

// Resume is the stage a run with no job left resumes at, when it can:
// nothing done yet is Explore, a run opening its pull request resumes the
// code stage (whose checkpoints skip what was done).
func Resume(stage string) (string, bool) {
	switch stage {
	case "":
		return Explore, true
	case PR:
		return Code, true
	case Explore, Plan, Code:
		return stage, true
	}
	return "", false
}

// Retry is where /retry picks up after a run that stopped at stage,
// knowing whether it wrote a spec and a plan comment: code when the plan
// was approved and coding had begun, plan when a spec exists, else
// explore.
func Retry(stage string, hasSpec, hasPlan bool) string {
	switch {
	case hasPlan && (stage == Code || stage == PR):
		return Code
	case hasSpec && stage != Explore:
		return Plan
	}
	return Explore
}
