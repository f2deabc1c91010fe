package lifecycle

import (
	"errors"
	"fmt"
	"testing"
)

// Every stage × state × outcome: what Transition answers, against the rules
// written out once more as a table of expectations per kind.
func TestTransitionTable(t *testing.T) {
	stages := append(Path(), "", Revise, CI, "nonsense")
	states := []string{Active, Waiting, Done, Failed, Cancelled}
	from := Status{Step: "before", Reason: "old"}
	for _, st := range states {
		for _, at := range stages {
			cur := from
			cur.Stage, cur.State = at, st
			for _, o := range outcomes(stages) {
				name := fmt.Sprintf("%s/%s/%s:%s:%s", st, at, o.Kind, o.Stage, o.State)
				got, err := Transition(cur, o)
				want, wantErr := expect(cur, o)
				switch {
				case wantErr != nil:
					if !errors.Is(err, wantErr) {
						t.Errorf("%s: err %v, want %v", name, err, wantErr)
					}
					if got != cur {
						t.Errorf("%s: a refused outcome changed the run: %+v", name, got)
					}
				case err != nil:
					t.Errorf("%s: %v", name, err)
				case got != want:
					t.Errorf("%s: got %+v, want %+v", name, got, want)
				}
			}
		}
	}
}

func outcomes(stages []string) []Outcome {
	var out []Outcome
	out = append(out, Outcome{Kind: Stay}, MergedPR("merged"), ClosedPR("closed"), Outcome{Kind: Kind(99)})
	for _, s := range stages {
		out = append(out, StartAt(s), StepAt(s, "doing"), NextStage(s, "next"), WaitAt(s, "waiting"))
	}
	for _, st := range []string{Done, Failed, Cancelled, Active, ""} {
		out = append(out, EndAs(st, "why", ""), EndAs(st, "why", "last"))
	}
	return out
}

// expect is the rule book: one line per kind.
func expect(s Status, o Outcome) (Status, error) {
	onPath := Index(o.Stage) >= 0
	switch o.Kind {
	case Stay:
		return s, nil
	case Start:
		if !onPath || o.Stage == Approval {
			return s, ErrInvalid
		}
		return Status{Stage: o.Stage, State: Active, Step: s.Step}, nil
	case Merged:
		if Open(s.State) {
			return s, ErrInvalid
		}
		return Status{Stage: s.Stage, State: Done, Step: o.Step}, nil
	case Closed:
		if Open(s.State) {
			return s, ErrInvalid
		}
		return Status{Stage: s.Stage, State: Cancelled, Step: s.Step, Reason: o.Reason}, nil
	}
	if !Open(s.State) {
		return s, ErrEnded
	}
	switch o.Kind {
	case Step, Wait:
		if !onPath {
			return s, ErrInvalid
		}
		state := Active
		if o.Kind == Wait {
			state = Waiting
		}
		return Status{Stage: o.Stage, State: state, Step: o.Step, Reason: s.Reason}, nil
	case Next:
		forward := Index(o.Stage) > Index(s.Stage) || o.Stage == s.Stage
		if !onPath || o.Stage == Approval || !forward {
			return s, ErrInvalid
		}
		return Status{Stage: o.Stage, State: Active, Step: o.Step, Reason: s.Reason}, nil
	case End:
		switch o.State {
		case Done, Failed, Cancelled:
		default:
			return s, ErrInvalid
		}
		r := Status{Stage: s.Stage, State: o.State, Step: s.Step, Reason: o.Reason}
		if o.State == Done {
			r.Reason = ""
		}
		if o.Step != "" {
			r.Step = o.Step
		}
		return r, nil
	}
	return s, ErrInvalid
}

func TestResumeAndRetry(t *testing.T) {
	for stage, want := range map[string]string{"": Explore, Explore: Explore, Plan: Plan, Code: Code, PR: Code, Approval: "", Revise: "", CI: ""} {
		got, ok := Resume(stage)
		if got != want || ok != (want != "") {
			t.Errorf("Resume(%q) = %q, %v; want %q", stage, got, ok, want)
		}
	}
	cases := []struct {
		stage      string
		spec, plan bool
		want       string
	}{
		{Explore, true, true, Explore},
		{Plan, true, false, Plan},
		{Approval, true, true, Plan},
		{Code, true, true, Code},
		{PR, true, true, Code},
		{Code, true, false, Plan},
		{Code, false, false, Explore},
		{"", false, false, Explore},
	}
	for _, c := range cases {
		if got := Retry(c.stage, c.spec, c.plan); got != c.want {
			t.Errorf("Retry(%q, %v, %v) = %q, want %q", c.stage, c.spec, c.plan, got, c.want)
		}
	}
}

func TestReported(t *testing.T) {
	for _, o := range []Outcome{WaitAt(Plan, ""), EndAs(Done, "", ""), MergedPR(""), ClosedPR("")} {
		if !Reported(o) {
			t.Errorf("%s not reported", o.Kind)
		}
	}
	for _, o := range []Outcome{{Kind: Stay}, StartAt(Plan), StepAt(Plan, ""), NextStage(Code, "")} {
		if Reported(o) {
			t.Errorf("%s reported", o.Kind)
		}
	}
}
