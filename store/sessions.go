package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Session is the record of what the bot did in one run: its totals here,
// its events in SessionEvent rows (package session writes them).
type Session struct {
	ID               int64
	InstallationID   int64
	RunID            int64 // the workflow run (0 for a local run)
	Owner, Repo      string
	Issue            int
	Requester        string
	State            string // a run state (StateActive, StateDone, ...)
	Stage            string // the stage of the latest event
	ModelCalls       int64
	PromptTokens     int64
	CachedTokens     int64
	CompletionTokens int64
	Cost             float64
	Bytes            int64 // bytes of event bodies and blobs stored
	Cut              bool  // some events were shrunk or dropped to keep the bound
	StartedAt        time.Time
	UpdatedAt        time.Time
	EndedAt          time.Time // zero while running
}

// FullRepo is "owner/repo".
func (s *Session) FullRepo() string { return s.Owner + "/" + s.Repo }

// Running reports whether the session's run has not ended.
func (s *Session) Running() bool { return s.EndedAt.IsZero() }

// SessionEvent is one event of a session. Body is the event's JSON, which
// package session defines; the store only keeps it.
type SessionEvent struct {
	SessionID int64
	Seq       int64
	Stage     string
	Step      string
	Attempt   int
	Kind      string
	At        time.Time
	Duration  time.Duration
	Body      string
	Shrunk    bool
}

// SessionDelta is what one appended event adds to its session's totals.
type SessionDelta struct {
	ModelCalls       int64
	PromptTokens     int64
	CachedTokens     int64
	CompletionTokens int64
	Cost             float64
}

// SessionFilter selects sessions for ListSessions.
type SessionFilter struct {
	Repo  string // "owner/name", case-insensitive; "" for all
	State string // "" for all
	// Visible restricts the list to these "owner/name" repositories when
	// non-nil (an empty, non-nil slice selects nothing).
	Visible []string
	// InstallationSign keeps the sessions whose installation id has this
	// sign when not 0 (1: above zero, -1: below zero): the server numbers
	// each forge's installations on one side of zero.
	InstallationSign int
	Limit            int // 50 when 0
	Offset           int
}

const sessionColumns = `id, installation_id, run_id, owner, repo, issue, requester, state, stage, model_calls,
	prompt_tokens, cached_tokens, completion_tokens, cost, bytes, cut, started_at, updated_at, ended_at`

func scanSession(row interface{ Scan(...any) error }) (*Session, error) {
	var s Session
	var cut, started, updated, ended int64
	err := row.Scan(&s.ID, &s.InstallationID, &s.RunID, &s.Owner, &s.Repo, &s.Issue, &s.Requester, &s.State, &s.Stage,
		&s.ModelCalls, &s.PromptTokens, &s.CachedTokens, &s.CompletionTokens, &s.Cost, &s.Bytes, &cut,
		&started, &updated, &ended)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	s.Cut = cut != 0
	s.StartedAt, s.UpdatedAt = time.UnixMilli(started), time.UnixMilli(updated)
	if ended != 0 {
		s.EndedAt = time.UnixMilli(ended)
	}
	return &s, nil
}

func (s *Store) ms() int64 { return s.now().UnixMilli() }

// CreateSession inserts sess (state active when empty) and sets its ID and
// times.
func (s *Store) CreateSession(ctx context.Context, sess *Session) error {
	if sess.State == "" {
		sess.State = StateActive
	}
	now := s.ms()
	err := s.queryRow(ctx, `INSERT INTO sessions (installation_id, run_id, owner, repo, issue, requester, state, stage,
		started_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		sess.InstallationID, sess.RunID, sess.Owner, sess.Repo, sess.Issue, sess.Requester, sess.State, sess.Stage,
		now, now).Scan(&sess.ID)
	if err != nil {
		return fmt.Errorf("create session for %s#%d: %w", sess.FullRepo(), sess.Issue, err)
	}
	sess.StartedAt, sess.UpdatedAt = time.UnixMilli(now), time.UnixMilli(now)
	return nil
}

// Session returns the session with id, or ErrNotFound.
func (s *Store) Session(ctx context.Context, id int64) (*Session, error) {
	sess, err := scanSession(s.queryRow(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE id = ?`, id))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("get session %d: %w", id, err)
	}
	return sess, err
}

// SessionOfRun returns the newest session of workflow run runID, or
// ErrNotFound: a resumed job appends to it.
func (s *Store) SessionOfRun(ctx context.Context, runID int64) (*Session, error) {
	sess, err := scanSession(s.queryRow(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE run_id = ?
		ORDER BY id DESC LIMIT 1`, runID))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("find session of run %d: %w", runID, err)
	}
	return sess, err
}

// ListSessions returns sessions newest first, as f selects.
func (s *Store) ListSessions(ctx context.Context, f SessionFilter) ([]*Session, error) {
	if f.Visible != nil && len(f.Visible) == 0 {
		return nil, nil
	}
	var where []string
	var args []any
	if f.Repo != "" {
		where = append(where, `LOWER(owner || '/' || repo) = ?`)
		args = append(args, strings.ToLower(f.Repo))
	}
	if f.State != "" {
		where = append(where, `state = ?`)
		args = append(args, f.State)
	}
	if f.Visible != nil {
		where = append(where, `LOWER(owner || '/' || repo) IN (?`+strings.Repeat(", ?", len(f.Visible)-1)+`)`)
		for _, r := range f.Visible {
			args = append(args, strings.ToLower(r))
		}
	}
	switch {
	case f.InstallationSign > 0:
		where = append(where, `installation_id > 0`)
	case f.InstallationSign < 0:
		where = append(where, `installation_id < 0`)
	}
	q := `SELECT ` + sessionColumns + ` FROM sessions`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, ` AND `)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	q += ` ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?`
	args = append(args, limit, max(f.Offset, 0))
	rows, err := s.db.QueryContext(ctx, s.rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var out []*Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// SessionRepos returns every "owner/name" that has a session, sorted.
func (s *Store) SessionRepos(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT owner, repo FROM sessions ORDER BY owner, repo`)
	if err != nil {
		return nil, fmt.Errorf("list session repositories: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var o, r string
		if err := rows.Scan(&o, &r); err != nil {
			return nil, fmt.Errorf("list session repositories: %w", err)
		}
		out = append(out, o+"/"+r)
	}
	return out, rows.Err()
}

// EndSession records that the session's run ended in state.
func (s *Store) EndSession(ctx context.Context, id int64, state string) error {
	now := s.ms()
	_, err := s.exec(ctx, `UPDATE sessions SET state = ?, ended_at = ?, updated_at = ? WHERE id = ?`, state, now, now, id)
	if err != nil {
		return fmt.Errorf("end session %d: %w", id, err)
	}
	return nil
}

// ReopenSession marks an ended session running again (a revise or CI round
// of a run that had ended appends to it).
func (s *Store) ReopenSession(ctx context.Context, id int64, state string) error {
	_, err := s.exec(ctx, `UPDATE sessions SET state = ?, ended_at = 0, updated_at = ? WHERE id = ?`, state, s.ms(), id)
	if err != nil {
		return fmt.Errorf("reopen session %d: %w", id, err)
	}
	return nil
}

// DeleteSessionsBefore deletes the sessions started before t with their
// events (the retention), in one transaction, and returns how many it
// deleted.
func (s *Store) DeleteSessionsBefore(ctx context.Context, t time.Time) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("delete sessions: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	n, err := rw{st: s, c: sqlConn{s: s, db: tx}}.deleteSessions(ctx, `started_at < ?`, t.UnixMilli())
	if err != nil {
		return 0, err
	}
	return n, tx.Commit()
}

// DeleteSessionsOf deletes every session of installationID with its events
// (the App was uninstalled) and returns how many it deleted. Call it in a
// Tx (the uninstall's): its statements are atomic only there.
func (s rw) DeleteSessionsOf(ctx context.Context, installationID int64) (int64, error) {
	return s.deleteSessions(ctx, `installation_id = ?`, installationID)
}

// deleteSessions deletes the sessions matching cond with their rows, on
// s's connection (a transaction: see the callers).
func (s rw) deleteSessions(ctx context.Context, cond string, arg any) (int64, error) {
	sel := `SELECT id FROM sessions WHERE ` + cond
	for _, child := range []string{"session_events", "session_steps", "session_blobs"} {
		if _, err := s.c.exec(ctx, `DELETE FROM `+child+` WHERE session_id IN (`+sel+`)`, arg); err != nil {
			return 0, fmt.Errorf("delete sessions: %s: %w", child, err)
		}
	}
	n, err := s.c.exec(ctx, `DELETE FROM sessions WHERE `+cond, arg)
	if err != nil {
		return 0, fmt.Errorf("delete sessions: %w", err)
	}
	return n, nil
}
