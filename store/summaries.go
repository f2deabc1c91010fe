package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// SummaryCache is the file-summary cache backed by the store: one line of
// text per git blob hash. Obtain it with (*Store).Summaries.
type SummaryCache struct{ s *Store }

// Summaries returns the store's file-summary cache.
func (s *Store) Summaries() *SummaryCache { return &SummaryCache{s: s} }

// Get returns the summary stored for blob; ok is false when there is none.
func (c *SummaryCache) Get(ctx context.Context, blob string) (summary string, ok bool, err error) {
	err = c.s.queryRow(ctx, `SELECT summary FROM file_summaries WHERE blob = ?`, blob).Scan(&summary)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("get summary %s: %w", blob, err)
	}
	return summary, true, nil
}

// Put stores summary for blob, replacing an earlier one.
func (c *SummaryCache) Put(ctx context.Context, blob, summary string) error {
	_, err := c.s.exec(ctx, `INSERT INTO file_summaries (blob, summary, created_at) VALUES (?, ?, ?)
		ON CONFLICT (blob) DO UPDATE SET summary = excluded.summary, created_at = excluded.created_at`, blob, summary, c.s.unix())
	if err != nil {
		return fmt.Errorf("put summary %s: %w", blob, err)
	}
	return nil
}

// GetSummary returns the summary stored for blob (summaries.Cache).
func (s *Store) GetSummary(ctx context.Context, blob string) (string, bool, error) {
	return s.Summaries().Get(ctx, blob)
}

// PutSummary stores summary for blob (summaries.Cache).
func (s *Store) PutSummary(ctx context.Context, blob, summary string) error {
	return s.Summaries().Put(ctx, blob, summary)
}
