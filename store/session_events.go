package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// AppendSessionEvent stores ev and adds its body's size and d to the
// session's totals, in one transaction. An event of a step that has
// finished (FinishSessionStep) is dropped: stored reports false.
func (s *Store) AppendSessionEvent(ctx context.Context, ev *SessionEvent, d SessionDelta) (stored bool, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("append session event: %w", err)
	}
	defer func() { _ = tx.Rollback() }() // after Commit it is a no-op
	if ev.Step != "" {
		var done int64
		err := tx.QueryRowContext(ctx, s.rebind(`SELECT done_at FROM session_steps WHERE session_id = ? AND step = ?`),
			ev.SessionID, ev.Step).Scan(&done)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return false, fmt.Errorf("append session event: %w", err)
		}
		if done != 0 {
			return false, nil
		}
	}
	_, err = tx.ExecContext(ctx, s.rebind(`INSERT INTO session_events (session_id, seq, stage, step, attempt, kind, at_ms,
		duration_ms, body, shrunk) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		ev.SessionID, ev.Seq, ev.Stage, ev.Step, max(ev.Attempt, 1), ev.Kind, ev.At.UnixMilli(),
		ev.Duration.Milliseconds(), ev.Body, boolInt(ev.Shrunk))
	if err != nil {
		return false, fmt.Errorf("append session event %d: %w", ev.Seq, err)
	}
	_, err = tx.ExecContext(ctx, s.rebind(`UPDATE sessions SET model_calls = model_calls + ?, prompt_tokens = prompt_tokens + ?,
		cached_tokens = cached_tokens + ?, completion_tokens = completion_tokens + ?, cost = cost + ?,
		bytes = bytes + ?, cut = CASE WHEN ? = 1 THEN 1 ELSE cut END, stage = ?, updated_at = ? WHERE id = ?`),
		d.ModelCalls, d.PromptTokens, d.CachedTokens, d.CompletionTokens, d.Cost, len(ev.Body), boolInt(ev.Shrunk),
		ev.Stage, s.ms(), ev.SessionID)
	if err != nil {
		return false, fmt.Errorf("append session event %d: totals: %w", ev.Seq, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("append session event %d: commit: %w", ev.Seq, err)
	}
	return true, nil
}

// ShrinkSessionEvent replaces the body of event seq by a shorter one,
// marks it shrunk and the session cut, and adjusts the session's bytes.
func (s *Store) ShrinkSessionEvent(ctx context.Context, sessionID, seq int64, body string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("shrink session event %d: %w", seq, err)
	}
	defer func() { _ = tx.Rollback() }() // after Commit it is a no-op
	var old string
	err = tx.QueryRowContext(ctx, s.rebind(`SELECT body FROM session_events WHERE session_id = ? AND seq = ?`),
		sessionID, seq).Scan(&old)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("shrink session event %d: %w", seq, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("shrink session event %d: %w", seq, err)
	}
	if _, err := tx.ExecContext(ctx, s.rebind(`UPDATE session_events SET body = ?, shrunk = 1 WHERE session_id = ? AND seq = ?`),
		body, sessionID, seq); err != nil {
		return fmt.Errorf("shrink session event %d: %w", seq, err)
	}
	if _, err := tx.ExecContext(ctx, s.rebind(`UPDATE sessions SET bytes = bytes - ?, cut = 1 WHERE id = ?`),
		len(old)-len(body), sessionID); err != nil {
		return fmt.Errorf("shrink session event %d: %w", seq, err)
	}
	return tx.Commit()
}

// SessionEvents returns the session's events with seq > after in order, at
// most limit (all when limit <= 0).
func (s *Store) SessionEvents(ctx context.Context, sessionID, after int64, limit int) ([]*SessionEvent, error) {
	q := `SELECT seq, stage, step, attempt, kind, at_ms, duration_ms, body, shrunk FROM session_events
		WHERE session_id = ? AND seq > ? ORDER BY seq`
	args := []any{sessionID, after}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := s.db.QueryContext(ctx, s.rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("read session %d events: %w", sessionID, err)
	}
	defer rows.Close()
	var out []*SessionEvent
	for rows.Next() {
		ev := &SessionEvent{SessionID: sessionID}
		var at, dur, shrunk int64
		if err := rows.Scan(&ev.Seq, &ev.Stage, &ev.Step, &ev.Attempt, &ev.Kind, &at, &dur, &ev.Body, &shrunk); err != nil {
			return nil, fmt.Errorf("read session %d events: %w", sessionID, err)
		}
		ev.At, ev.Duration, ev.Shrunk = time.UnixMilli(at), time.Duration(dur)*time.Millisecond, shrunk != 0
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read session %d events: %w", sessionID, err)
	}
	return out, nil
}

// BeginSessionStep counts a new attempt of step and returns its number, or
// done when the step has finished before (its events will be dropped).
func (s *Store) BeginSessionStep(ctx context.Context, sessionID int64, step string) (attempt int, done bool, err error) {
	_, err = s.exec(ctx, `INSERT INTO session_steps (session_id, step, attempts) VALUES (?, ?, 1)
		ON CONFLICT (session_id, step) DO UPDATE SET attempts = session_steps.attempts + 1 WHERE session_steps.done_at = 0`,
		sessionID, step)
	if err != nil {
		return 0, false, fmt.Errorf("begin session step %s: %w", step, err)
	}
	var doneAt int64
	if err := s.queryRow(ctx, `SELECT attempts, done_at FROM session_steps WHERE session_id = ? AND step = ?`,
		sessionID, step).Scan(&attempt, &doneAt); err != nil {
		return 0, false, fmt.Errorf("begin session step %s: %w", step, err)
	}
	return attempt, doneAt != 0, nil
}

// FinishSessionStep records that step finished: later events of the same
// step (a re-run after a crash) are dropped.
func (s *Store) FinishSessionStep(ctx context.Context, sessionID int64, step string) error {
	_, err := s.exec(ctx, `INSERT INTO session_steps (session_id, step, attempts, done_at) VALUES (?, ?, 1, ?)
		ON CONFLICT (session_id, step) DO UPDATE SET done_at = excluded.done_at WHERE session_steps.done_at = 0`,
		sessionID, step, s.ms())
	if err != nil {
		return fmt.Errorf("finish session step %s: %w", step, err)
	}
	return nil
}

// PutSessionBlob stores body under hash once per session (system prompts,
// tool schemas); stored reports whether it was new.
func (s *Store) PutSessionBlob(ctx context.Context, sessionID int64, hash, kind, body string) (stored bool, err error) {
	res, err := s.exec(ctx, `INSERT INTO session_blobs (session_id, hash, kind, body) VALUES (?, ?, ?, ?)
		ON CONFLICT (session_id, hash) DO NOTHING`, sessionID, hash, kind, body)
	if err != nil {
		return false, fmt.Errorf("store session blob: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	if _, err := s.exec(ctx, `UPDATE sessions SET bytes = bytes + ? WHERE id = ?`, len(body), sessionID); err != nil {
		return true, fmt.Errorf("store session blob: %w", err)
	}
	return true, nil
}

// SessionBlob is one stored system prompt or tool schema.
type SessionBlob struct{ Hash, Kind, Body string }

// SessionBlobs returns the session's blobs by hash.
func (s *Store) SessionBlobs(ctx context.Context, sessionID int64) (map[string]SessionBlob, error) {
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT hash, kind, body FROM session_blobs WHERE session_id = ?`), sessionID)
	if err != nil {
		return nil, fmt.Errorf("read session %d blobs: %w", sessionID, err)
	}
	defer rows.Close()
	out := map[string]SessionBlob{}
	for rows.Next() {
		var b SessionBlob
		if err := rows.Scan(&b.Hash, &b.Kind, &b.Body); err != nil {
			return nil, fmt.Errorf("read session %d blobs: %w", sessionID, err)
		}
		out[b.Hash] = b
	}
	return out, rows.Err()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
