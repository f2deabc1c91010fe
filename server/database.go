package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/workflow"
)

// errDatabaseAway is what the parts built on the database answer before it
// answered once: the webhook holds the delivery (HOLD_DIR), /readyz says so.
var errDatabaseAway = errors.New("the database has not answered yet")

// reconnectEvery bounds the pause between two attempts to open the
// database when bot serve started without it (attempts start at 250 ms
// and double up to this).
const reconnectEvery = 5 * time.Second

// store is the open database, nil until it answered once.
func (s *Server) store() *store.Store { return s.db.Load() }

// engine is the workflow engine, nil until the database answered once.
func (s *Server) engine() *workflow.Engine { return s.eng.Load() }

// ping is the database's health: errDatabaseAway before it answered once.
func (s *Server) ping(ctx context.Context) error {
	st := s.store()
	if st == nil {
		return errDatabaseAway
	}
	return st.Ping(ctx)
}

// open opens and migrates the database once, within the start-up bound,
// and builds what stands on it (attach).
func (s *Server) open(ctx context.Context) error {
	limit := cmp.Or(s.tune.StartTimeout, defaultStartTimeout)
	octx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	st, err := store.OpenMigrated(octx, s.cfg.DatabaseURL)
	if err != nil {
		return startErr(ctx, octx, limit, err)
	}
	if err := s.attach(st); err != nil {
		st.Close()
		return err
	}
	return nil
}

// attach makes st the server's database and builds the workflow engine on
// it (build, prepared by New with every other part).
func (s *Server) attach(st *store.Store) error {
	s.gate.Store = st // read only by model calls, which only jobs make
	eng, err := s.build(st)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.closers = append(s.closers, st)
	s.mu.Unlock()
	s.db.Store(st)
	s.eng.Store(eng)
	return nil
}

// connect opens the database for a server started without it: it tries
// until the database answers (or ctx ends), then starts the engine and
// reports the server ready. An error that is not the database's absence
// (the engine would not build or start) ends Serve through fatal.
func (s *Server) connect(ctx context.Context, started func(), fatal func(error)) {
	wait := 250 * time.Millisecond
	for s.engine() == nil {
		err := s.open(ctx)
		if err == nil {
			s.log.Info("the database answers: recording held deliveries and working jobs")
			break
		}
		if ctx.Err() != nil {
			return
		}
		msg := err.Error()
		s.dbErr.Store(&msg)
		s.log.Warn("the database does not answer; deliveries are held until it does", "err", err, "retry_in", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, reconnectEvery)
	}
	if err := s.engine().Start(ctx); err != nil {
		fatal(err)
		return
	}
	s.dbErr.Store(nil)
	started()
}

// lateIntake is the webhook's Intake before and after the database
// answered: the engine once it exists, else errDatabaseAway at once (the
// handler holds the delivery, or answers 503 without a spool).
type lateIntake struct{ s *Server }

func (l lateIntake) Accept(ctx context.Context, keys []string, ev workflow.Event) (string, error) {
	eng := l.s.engine()
	if eng == nil {
		return "", fmt.Errorf("record the delivery: %w", errDatabaseAway)
	}
	return eng.Accept(ctx, keys, ev)
}

// redeliverNow asks the engine for a reconciliation pass now.
func (s *Server) redeliverNow(ctx context.Context) error {
	eng := s.engine()
	if eng == nil {
		return errDatabaseAway
	}
	return eng.RedeliverNow(ctx)
}
