package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/replay"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

// replaySessions is `bot replay --sessions DSN`: each instance's run keeps
// a session in that database (SQLite file or PostgreSQL URL), bounded and
// redacted as a run of the App is, so `bot sessions` (and the page) read
// them, and each result line says how many bytes its session stored.
func replaySessions(ctx context.Context, dsn string) (replay.SessionOpener, func() error, error) {
	st, err := store.OpenMigrated(ctx, dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("--sessions: %w", err)
	}
	open := func(ctx context.Context, in *replay.Instance) (replay.RunSession, error) {
		owner, name, _ := strings.Cut(in.Repo, "/")
		meta := store.Session{Owner: owner, Repo: name, Requester: "replay", Stage: session.StageExplore}
		rec := session.Start(ctx, st, meta, session.Options{})
		if rec == nil {
			return nil, fmt.Errorf("--sessions: could not start the session of %s", in.ID)
		}
		rec.Begin(ctx, session.StageExplore, session.StageExplore)
		return &replaySession{s: &solveSession{rec: rec}, st: st}, nil
	}
	return open, st.Close, nil
}

// replaySession drives one instance's recorder the way `bot solve
// --session` does, on the store.
type replaySession struct {
	s  *solveSession
	st *store.Store
}

func (r *replaySession) Model(m llm.Model) llm.Model { return r.s.rec.Model(m) }
func (r *replaySession) Stage(ctx context.Context, announced string) {
	r.s.stage(ctx, announced)
}
func (r *replaySession) Code(ctx context.Context, res *coder.Result) { r.s.code(ctx, res) }

// End ends the session and returns the bytes the store holds for it.
func (r *replaySession) End(ctx context.Context, state string) (int64, error) {
	r.s.rec.Finish(ctx)
	r.s.rec.End(ctx, state)
	got, err := r.st.Session(ctx, r.s.rec.ID())
	if err != nil {
		return 0, err
	}
	return got.Bytes, nil
}
