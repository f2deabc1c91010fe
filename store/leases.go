package store

import (
	"context"
	"fmt"
	"time"
)

// AcquireLease gives holder the issue for ttl unless another holder has an
// unexpired lease. Re-acquiring one's own lease extends it. A crashed
// holder's lease simply expires, so a restarted process takes over.
func (s rw) AcquireLease(ctx context.Context, key IssueKey, holder string, ttl time.Duration) (bool, error) {
	now := s.now()
	n, err := s.c.exec(ctx, `INSERT INTO issue_leases (owner, repo, issue, holder, expires_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (owner, repo, issue) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
		WHERE issue_leases.holder = excluded.holder OR issue_leases.expires_at < ?`,
		key.Owner, key.Repo, key.Issue, holder, now.Add(ttl).Unix(), now.Unix())
	if err != nil {
		return false, fmt.Errorf("lease %s: %w", key, err)
	}
	return n == 1, nil
}

// ReleaseLease ends holder's lease on the issue; someone else's is kept.
func (s rw) ReleaseLease(ctx context.Context, key IssueKey, holder string) error {
	_, err := s.c.exec(ctx, `DELETE FROM issue_leases WHERE owner = ? AND repo = ? AND issue = ? AND holder = ?`,
		key.Owner, key.Repo, key.Issue, holder)
	if err != nil {
		return fmt.Errorf("release lease %s: %w", key, err)
	}
	return nil
}
