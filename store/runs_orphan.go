package store

import (
	"context"
	"fmt"
	"time"
)

// liveJobStates are River's states of a job that will still run.
const liveJobStates = `('available', 'pending', 'running', 'retryable', 'scheduled')`

// ActiveRunsWithoutJob returns the active runs not saved for at least idle
// that no job of kind (with their id as args.run_id) will work any more: a
// run in that state would wait for ever, and nobody would say why. Runs
// waiting for a person (StateWaiting) need no job.
func (s *Store) ActiveRunsWithoutJob(ctx context.Context, kind string, idle time.Duration) ([]*Run, error) {
	runID := `json_extract(CAST(j.args AS TEXT), '$.run_id')`
	if s.dialect == Postgres {
		runID = `(j.args->>'run_id')::bigint`
	}
	q := `SELECT ` + runColumns + ` FROM runs r WHERE r.state = 'active' AND r.updated_at < ?
		AND NOT EXISTS (SELECT 1 FROM river_job j WHERE j.kind = ? AND j.state IN ` + liveJobStates + ` AND ` + runID + ` = r.id)
		ORDER BY r.id`
	rs, err := s.c.query(ctx, q, s.now().Add(-idle).Unix(), kind)
	if err != nil {
		return nil, fmt.Errorf("find active runs without a job: %w", err)
	}
	defer rs.Close()
	var out []*Run
	for rs.Next() {
		r, err := scanRun(rs)
		if err != nil {
			return nil, fmt.Errorf("find active runs without a job: %w", err)
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("find active runs without a job: %w", err)
	}
	return out, nil
}
