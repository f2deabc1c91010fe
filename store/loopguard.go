package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Trigger records that work of kind ("run", "revise", "ci") starts for
// issue key now, unless max of that kind started within the last window:
// then it records nothing and returns false. n is how many had started.
//
// It runs on the database or inside a Tx: in the transaction that queues
// the work, a retried delivery's rolled-back attempt counts nothing.
func (s rw) Trigger(ctx context.Context, key IssueKey, kind string, window time.Duration, max int) (ok bool, n int, err error) {
	owner, repo := strings.ToLower(key.Owner), strings.ToLower(key.Repo)
	since := s.now().Add(-window)
	err = s.c.queryRow(ctx, `SELECT COUNT(*) FROM loop_triggers WHERE owner = ? AND repo = ? AND issue = ? AND kind = ? AND at_ms >= ?`,
		owner, repo, key.Issue, kind, since.UnixMilli()).Scan(&n)
	if err != nil {
		return false, 0, fmt.Errorf("loop guard of %s: %w", key, err)
	}
	if n >= max {
		return false, n, nil
	}
	if _, err := s.c.exec(ctx, `INSERT INTO loop_triggers (owner, repo, issue, kind, at_ms) VALUES (?, ?, ?, ?, ?)`,
		owner, repo, key.Issue, kind, s.now().UnixMilli()); err != nil {
		return false, n, fmt.Errorf("loop guard of %s: %w", key, err)
	}
	return true, n, nil
}

// PruneTriggers deletes loop-guard records older than age.
func (s *Store) PruneTriggers(ctx context.Context, age time.Duration) error {
	if _, err := s.exec(ctx, `DELETE FROM loop_triggers WHERE at_ms < ?`, s.now().Add(-age).UnixMilli()); err != nil {
		return fmt.Errorf("prune loop guard: %w", err)
	}
	return nil
}
