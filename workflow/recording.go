package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"

	srec "github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/work"
	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

// Sessions are what the engine records of each run (package session): the
// recorder's options, and where people read a session.
type Sessions struct {
	// Options are every recorder's (bound, secrets, the failure log and
	// metric).
	Options srec.Options
	// PageURL is the bot's public URL when the sessions page is on: the
	// progress comment links "View session" there. "" links nothing.
	PageURL string
}

// recording is one job's part of its run's session. The recorder opens
// when the job begins a step (a CI job that only looks at checks opens
// nothing); a session store that fails leaves it nil and the job goes on.
type recording struct {
	rec     *srec.Recorder
	id      int64 // the session's id, once known (looked up for the link)
	idKnown bool
}

// record begins step key of stage in the run's session, opening it (or
// the run's existing one) first, and returns ctx carrying the recorder:
// the agents' models and tools, and the GitHub and git decorators, record
// to it. A step that had finished (a resumed job) records nothing again.
func (s *runJob) record(ctx context.Context, stage, key string) context.Context {
	if s.e.o.Sessions == nil || key == "" {
		return ctx
	}
	if s.rec.rec == nil {
		s.rec.rec = srec.Start(ctx, s.e.d.Store, store.Session{InstallationID: s.run.InstallationID, RunID: s.run.ID,
			Owner: s.run.Owner, Repo: s.run.Repo, Issue: s.run.Issue, Requester: s.run.Requester,
			State: lifecycle.Active, Stage: stage}, s.e.o.Sessions.Options)
		if s.rec.rec == nil {
			s.rec.idKnown = true // no session this job: no second failing look-up for the link
			return ctx           // logged and counted by Start
		}
		s.rec.id, s.rec.idKnown = s.rec.rec.ID(), true
	}
	if stage == srec.StageRevise {
		stage = srec.Round(stage, s.round(ctx, key))
	}
	s.rec.rec.Begin(ctx, stage, key)
	return srec.With(ctx, s.rec.rec)
}

// round numbers the revise step key among the session's revise steps.
func (s *runJob) round(ctx context.Context, key string) int {
	steps, err := s.e.d.Store.SessionSteps(ctx, s.rec.rec.ID())
	if err != nil {
		s.sessionFailed(err)
		return 1
	}
	n := 1
	for _, st := range steps {
		if st != key && strings.HasPrefix(st, StageRevise+" ") {
			n++
		}
	}
	return n
}

// recordEnd closes the job's part of the session: the step finished when
// the stage did, and the session ended when the run did.
func (s *runJob) recordEnd(ctx context.Context, t transition, err error) {
	after := *s.run
	if err == nil && moveRun(&after, t.o) != nil {
		after = *s.run
	}
	r := s.rec.rec
	if r == nil {
		if s.e.o.Sessions != nil && !after.Open() {
			// A job that recorded nothing (resumed, it found its round
			// done) still ends a session its killed attempt left open.
			s.e.endSession(ctx, s.run.ID, after.State)
		}
		return
	}
	if err == nil {
		r.Finish(ctx)
	}
	if !after.Open() {
		r.End(ctx, after.State)
		// Once more from the store's record when that write failed (a
		// transient error): no later job of the run may end it.
		s.e.endSession(ctx, s.run.ID, after.State)
	}
}

// stepKey names the step a stage job records: one per stage and request
// (generation, comment, head), so a repeated request is a new step and a
// resumed job the same one.
func stepKey(a StageArgs) string {
	switch a.Stage {
	case StageExplore, StagePlan, StageCode:
		return fmt.Sprintf("%s %d", a.Stage, a.Gen)
	case StageRevise:
		return StageRevise + " " + strings.TrimPrefix(reviseKey(a), "revise.")
	}
	return ""
}

// sessionStage is the session's name of a workflow stage ("" when the
// stage records nothing of its own).
func sessionStage(stage string) string {
	switch stage {
	case StageExplore:
		return srec.StageExplore
	case StagePlan:
		return srec.StagePlan
	case StageCode:
		return srec.StageCode
	case StageRevise:
		return srec.StageRevise
	}
	return ""
}

// endSession ends the session of run (state) when the run ended outside a
// job that recorded (a failure reported later, a cancel, an uninstall).
func (e *Engine) endSession(ctx context.Context, runID int64, state string) {
	if e.o.Sessions == nil {
		return
	}
	// Through the recorders' decorator (the trace export), so a run ended
	// here (cancelled, uninstalled, failed later) ends its trace too.
	var sink srec.Sink = e.d.Store
	if wrap := e.o.Sessions.Options.Wrap; wrap != nil {
		sink = wrap(sink)
	}
	sess, err := sink.SessionOfRun(ctx, runID)
	if err == nil && (sess.Running() || sess.State != state) {
		err = sink.EndSession(ctx, sess.ID, state)
	}
	if err != nil && !isNotFound(err) {
		e.sessionFailed(err)
	}
}

// sessionFailed counts and logs a session store failure: the run goes on.
func (e *Engine) sessionFailed(err error) {
	if o := e.o.Sessions; o != nil && o.Options.OnError != nil {
		o.Options.OnError(err)
	}
	e.log.Warn("session: the session store failed; the run goes on without it", "err", redact(err.Error()))
}

func (s *runJob) sessionFailed(err error) { s.e.sessionFailed(err) }

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// sessionFooter is what the progress comment shows of the run's session:
// the "View session" link when the page is on, and once the run has ended
// the "What I looked at" fold. "" without a session.
func (s *runJob) sessionFooter(ctx context.Context, run *Run) string {
	o := s.e.o.Sessions
	if o == nil {
		return ""
	}
	id := s.sessionID(ctx)
	if id == 0 {
		return ""
	}
	var b strings.Builder
	if link := srec.Link(o.PageURL, id); link != "" {
		fmt.Fprintf(&b, "\n[View session](%s)\n", link)
	}
	if !run.Open() {
		if fold := s.lookedAt(ctx, id); fold != "" {
			b.WriteString("\n" + fold)
		}
	}
	return b.String()
}

// sessionID is the run's session id: the recorder's, else looked up once.
func (s *runJob) sessionID(ctx context.Context) int64 {
	if s.rec.idKnown {
		return s.rec.id
	}
	s.rec.idKnown = true
	sess, err := s.e.d.Store.SessionOfRun(ctx, s.run.ID)
	if err != nil {
		if !isNotFound(err) {
			s.sessionFailed(err)
		}
		return 0
	}
	s.rec.id = sess.ID
	return sess.ID
}

// lookedAt renders the session's "What I looked at" fold, with the spec's
// reason for each file it names as the explorer's verdict on it.
func (s *runJob) lookedAt(ctx context.Context, id int64) string {
	raw, err := s.e.d.Store.SessionEvents(ctx, id, 0, 0)
	if err != nil {
		s.sessionFailed(err)
		return ""
	}
	events := make([]srec.Event, 0, len(raw))
	for _, r := range raw {
		if ev, err := srec.Decode(r); err == nil {
			events = append(events, ev)
		}
	}
	verdicts := map[string]string{}
	if spec, err := work.ParseSpec(s.run.SpecBody); err == nil {
		for _, f := range spec.Files {
			verdicts[f.Path] = f.Reason
		}
	}
	return srec.LookedAt(events, verdicts)
}
