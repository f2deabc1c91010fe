package main

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"time"

	"github.com/issuesmith/issuesmith/agents"
	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/session/otelexport"
	"github.com/issuesmith/issuesmith/store"
)

// solveSession is `bot solve --session FILE`: the run's session written as
// JSON lines (session.File) while it goes, and exported as a trace when
// OTEL_EXPORTER_OTLP_ENDPOINT is set (session/otelexport). Every method is a
// no-op without --session.
type solveSession struct {
	rec *session.Recorder
	fh  *os.File
	exp *otelexport.Exporter // nil without an OTLP endpoint
}

// stageOf names the session stage of an agents.Local stage announcement.
var stageOf = map[string]string{"indexing": session.StageExplore, "planning": session.StagePlan, "coding": session.StageCode}

func openSolveSession(ctx context.Context, path, dir, modelURL string, secrets ...string) (*solveSession, error) {
	if path == "" {
		return &solveSession{}, nil
	}
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, usageErr("--session %s: %v", path, err)
	}
	meta := store.Session{Owner: "local", Repo: filepath.Base(dir), Requester: localUser(), Stage: session.StageExplore}
	opts := session.Options{Secrets: secrets, MaxBytes: 1 << 40}
	var exp *otelexport.Exporter
	if otelexport.Enabled() {
		if exp, err = otelexport.New(ctx, otelexport.Options{Provider: otelexport.ProviderOf(modelURL)}); err != nil {
			fh.Close()
			return nil, err
		}
		opts.Wrap = exp.Wrap
	}
	rec := session.Start(ctx, session.NewFile(fh), meta, opts)
	if rec == nil {
		fh.Close()
		return nil, fmt.Errorf("--session %s: could not start writing the session", path)
	}
	rec.Begin(ctx, session.StageExplore, session.StageExplore)
	return &solveSession{rec: rec, fh: fh, exp: exp}, nil
}

// stage starts the session's stage for a Local stage announcement.
func (s *solveSession) stage(ctx context.Context, announced string) {
	if st, ok := stageOf[announced]; ok && st != session.StageExplore {
		s.rec.Finish(ctx)
		s.rec.Begin(ctx, st, st)
	}
}

// code records what the coder did: each edit applied or refused, each
// check, and the change per file (agents.RecordCode, as bot serve does).
func (s *solveSession) code(ctx context.Context, res *coder.Result) {
	agents.RecordCode(ctx, s.rec, res)
}

// end closes the session in state.
func (s *solveSession) end(ctx context.Context, state string) error {
	if s.rec == nil {
		return nil
	}
	s.rec.Finish(ctx)
	s.rec.End(ctx, state)
	if s.exp != nil {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = s.exp.Shutdown(fctx) // a trace not sent is not the run's failure
	}
	return s.fh.Close()
}

// localUser names who runs `bot solve` for its session's record: the
// account's login, "" when the system does not say.
func localUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}
