package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// CancelRunsOf ends, as cancelled with reason, every open run of
// installationID — all of them when repos is empty, else only those of the
// listed "owner/name" repositories. It writes the database only: the App was
// uninstalled or lost access, so nothing may be said on GitHub. It returns
// the runs it ended.
func (s *Store) CancelRunsOf(ctx context.Context, installationID int64, repos []string, reason string) ([]*Run, error) {
	q := `SELECT ` + runColumns + ` FROM runs WHERE installation_id = ? AND state IN ('active', 'waiting')`
	rows, err := s.db.QueryContext(ctx, s.rebind(q), installationID)
	if err != nil {
		return nil, fmt.Errorf("find open runs of installation %d: %w", installationID, err)
	}
	var open []*Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("find open runs of installation %d: %w", installationID, err)
		}
		if len(repos) == 0 || containsFold(repos, r.Owner+"/"+r.Repo) {
			open = append(open, r)
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, fmt.Errorf("find open runs of installation %d: %w", installationID, err)
	}
	rows.Close()
	var ended []*Run
	for _, r := range open {
		err := s.endRun(ctx, r, reason)
		if errors.Is(err, ErrClosed) {
			continue // ended meanwhile
		}
		if err != nil {
			return ended, err
		}
		ended = append(ended, r)
	}
	return ended, nil
}

// endRun cancels r, reading it again when a stage saved it meanwhile.
func (s *Store) endRun(ctx context.Context, r *Run, reason string) error {
	for {
		r.State, r.Reason = StateCancelled, reason
		err := s.SaveOpenRun(ctx, r)
		if !errors.Is(err, ErrStale) {
			return err
		}
		fresh, err := s.Run(ctx, r.ID)
		if err != nil {
			return err
		}
		*r = *fresh
	}
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
