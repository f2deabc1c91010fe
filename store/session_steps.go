package store

import (
	"context"
	"fmt"
)

// SessionSteps returns the step keys the session has begun (in no set
// order): the workflow numbers revise rounds by them.
func (s *Store) SessionSteps(ctx context.Context, sessionID int64) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT step FROM session_steps WHERE session_id = ?`), sessionID)
	if err != nil {
		return nil, fmt.Errorf("read session %d steps: %w", sessionID, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var step string
		if err := rows.Scan(&step); err != nil {
			return nil, fmt.Errorf("read session %d steps: %w", sessionID, err)
		}
		out = append(out, step)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read session %d steps: %w", sessionID, err)
	}
	return out, nil
}
