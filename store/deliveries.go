package store

import (
	"context"
	"fmt"
	"time"
)

// RecordDelivery remembers a webhook delivery id. It reports true the first
// time an id is seen and false for a repeat, which the caller ignores.
func (s *Store) RecordDelivery(ctx context.Context, id, event string) (fresh bool, err error) {
	if id == "" {
		return false, fmt.Errorf("record delivery: empty delivery id")
	}
	res, err := s.exec(ctx, `INSERT INTO deliveries (id, event, received_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING`, id, event, s.unix())
	if err != nil {
		return false, fmt.Errorf("record delivery %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("record delivery %s: %w", id, err)
	}
	return n == 1, nil
}

// PruneDeliveries forgets deliveries older than age (GitHub redelivers for
// at most a few days) and reports how many went.
func (s *Store) PruneDeliveries(ctx context.Context, age time.Duration) (int64, error) {
	res, err := s.exec(ctx, `DELETE FROM deliveries WHERE received_at < ?`, s.now().Add(-age).Unix())
	if err != nil {
		return 0, fmt.Errorf("prune deliveries: %w", err)
	}
	return res.RowsAffected()
}

// ForgetDelivery removes a recorded delivery, so GitHub's redelivery of a
// delivery that could not be handled is processed instead of ignored.
func (s *Store) ForgetDelivery(ctx context.Context, id string) error {
	if _, err := s.exec(ctx, `DELETE FROM deliveries WHERE id = ?`, id); err != nil {
		return fmt.Errorf("forget delivery %s: %w", id, err)
	}
	return nil
}

// FirstRecorded returns the first of keys (delivery ids or body keys) that
// is recorded, "" when none is.
func (s *Store) FirstRecorded(ctx context.Context, keys []string) (string, error) {
	for _, k := range keys {
		ok, err := s.HasDelivery(ctx, k)
		if err != nil {
			return "", err
		}
		if ok {
			return k, nil
		}
	}
	return "", nil
}

// HasDelivery reports whether a delivery id (or body key) is recorded.
func (s *Store) HasDelivery(ctx context.Context, id string) (bool, error) {
	var n int
	if err := s.queryRow(ctx, `SELECT COUNT(*) FROM deliveries WHERE id = ?`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("has delivery %s: %w", id, err)
	}
	return n > 0, nil
}
