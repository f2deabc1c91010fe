package store

import (
	"context"
	"fmt"
	"strings"
)

// OpenRunsOf returns every open run of installationID — all of them when
// repos is empty, else only those of the listed "owner/name" repositories
// (compared without case, as GitHub does). The workflow ends them when the
// App loses access (in one transaction with forgetting the repositories).
func (s rw) OpenRunsOf(ctx context.Context, installationID int64, repos []string) ([]*Run, error) {
	rs, err := s.c.query(ctx, `SELECT `+runColumns+` FROM runs WHERE installation_id = ? AND state IN ('active', 'waiting') ORDER BY id`,
		installationID)
	if err != nil {
		return nil, fmt.Errorf("find open runs of installation %d: %w", installationID, err)
	}
	defer rs.Close()
	var open []*Run
	for rs.Next() {
		r, err := scanRun(rs)
		if err != nil {
			return nil, fmt.Errorf("find open runs of installation %d: %w", installationID, err)
		}
		if len(repos) == 0 || containsFold(repos, r.Owner+"/"+r.Repo) {
			open = append(open, r)
		}
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("find open runs of installation %d: %w", installationID, err)
	}
	return open, nil
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
