package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// UsageEntry is one model call in the usage ledger. A call is reserved
// (Pending, holding its worst case) before it is made and charged with
// what it used after, so concurrent calls see each other's reservations
// and a crash between the two leaves the worst case counted.
type UsageEntry struct {
	ID               int64
	At               time.Time
	InstallationID   int64
	Owner, Repo      string
	Issue            int
	RunID            int64 // 0 for work outside a run (summary refreshes)
	Stage            string
	Role, Model      string
	PromptTokens     int64
	CachedTokens     int64
	CompletionTokens int64
	Cost             float64
	Estimated        bool // usage counted locally: the endpoint reported none
	Pending          bool
}

// Tokens is prompt plus completion tokens.
func (e *UsageEntry) Tokens() int64 { return e.PromptTokens + e.CompletionTokens }

// ReserveUsage inserts e as a pending entry (its tokens and cost are the
// call's worst case) at e.At, or at the store's clock when zero, and sets
// e.ID and e.At.
func (s *Store) ReserveUsage(ctx context.Context, e *UsageEntry) error {
	at := s.ms()
	if !e.At.IsZero() {
		at = e.At.UnixMilli()
	}
	err := s.queryRow(ctx, `INSERT INTO usage_ledger (at_ms, installation_id, owner, repo, issue, run_id, stage, role, model,
		prompt_tokens, cached_tokens, completion_tokens, cost, estimated, pending) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 1)
		RETURNING id`, at, e.InstallationID, strings.ToLower(e.Owner), strings.ToLower(e.Repo), e.Issue, e.RunID, e.Stage,
		e.Role, e.Model, e.PromptTokens, e.CachedTokens, e.CompletionTokens, e.Cost).Scan(&e.ID)
	if err != nil {
		return fmt.Errorf("reserve usage of %s/%s: %w", e.Owner, e.Repo, err)
	}
	e.At, e.Pending = time.UnixMilli(at), true
	return nil
}

// ChargeUsage replaces reserved entry id's worst case with what the call
// used (all zero for a call that failed).
func (s *Store) ChargeUsage(ctx context.Context, id int64, prompt, cached, completion int64, cost float64, estimated bool) error {
	_, err := s.exec(ctx, `UPDATE usage_ledger SET prompt_tokens = ?, cached_tokens = ?, completion_tokens = ?, cost = ?,
		estimated = ?, pending = 0 WHERE id = ?`, prompt, cached, completion, cost, boolInt(estimated), id)
	if err != nil {
		return fmt.Errorf("charge usage %d: %w", id, err)
	}
	return nil
}

// DropUsage deletes reserved entry id: the call was refused.
func (s *Store) DropUsage(ctx context.Context, id int64) error {
	if _, err := s.exec(ctx, `DELETE FROM usage_ledger WHERE id = ?`, id); err != nil {
		return fmt.Errorf("drop usage %d: %w", id, err)
	}
	return nil
}

// UsageScope names the windows UsageWindows sums: a run, a repository
// and an installation since the start of their day and month.
type UsageScope struct {
	InstallationID int64
	Owner, Repo    string
	RunID          int64 // 0: no run
	Day, Month     time.Time
}

// UsageSum is the tokens (prompt + completion) and cost of some entries.
type UsageSum struct {
	Tokens int64
	Cost   float64
}

// UsageWindows are the sums of one UsageScope, pending reservations
// included.
type UsageWindows struct {
	Run, RepoDay, RepoMonth, InstallationDay, InstallationMonth UsageSum
}

// UsageWindows sums the ledger over sc's windows in one query.
func (s *Store) UsageWindows(ctx context.Context, sc UsageScope) (UsageWindows, error) {
	run := sc.RunID
	if run == 0 {
		run = -1
	}
	owner, repo := strings.ToLower(sc.Owner), strings.ToLower(sc.Repo)
	day, month := sc.Day.UnixMilli(), sc.Month.UnixMilli()
	var args []any
	sum := func(cond string, a ...any) string {
		args = append(append(args, a...), a...) // the condition appears twice
		return `CAST(COALESCE(SUM(CASE WHEN ` + cond + ` THEN prompt_tokens + completion_tokens ELSE 0 END), 0) AS BIGINT), ` +
			`COALESCE(SUM(CASE WHEN ` + cond + ` THEN cost ELSE 0.0 END), 0.0)`
	}
	const repoSince, instSince = `owner = ? AND repo = ? AND at_ms >= ?`, `installation_id = ? AND at_ms >= ?`
	q := `SELECT ` + sum(`run_id = ?`, run) + `, ` + sum(repoSince, owner, repo, day) + `, ` +
		sum(repoSince, owner, repo, month) + `, ` + sum(instSince, sc.InstallationID, day) + `, ` +
		sum(instSince, sc.InstallationID, month) + ` FROM usage_ledger WHERE run_id = ? OR at_ms >= ?`
	args = append(args, run, month)
	var w UsageWindows
	err := s.queryRow(ctx, q, args...).Scan(
		&w.Run.Tokens, &w.Run.Cost, &w.RepoDay.Tokens, &w.RepoDay.Cost, &w.RepoMonth.Tokens, &w.RepoMonth.Cost,
		&w.InstallationDay.Tokens, &w.InstallationDay.Cost, &w.InstallationMonth.Tokens, &w.InstallationMonth.Cost)
	if err != nil {
		return w, fmt.Errorf("sum usage of %s/%s: %w", sc.Owner, sc.Repo, err)
	}
	return w, nil
}

// UsageRow is one line of UsageReport: the calls grouped under Key.
type UsageRow struct {
	Key              string
	Calls            int64
	PromptTokens     int64
	CachedTokens     int64
	CompletionTokens int64
	Cost             float64
}

// Usage groupings of UsageReport.
var usageGroups = map[string]string{
	"repo":         `owner || '/' || repo`,
	"installation": `CAST(installation_id AS TEXT)`,
	"model":        `model`,
	"role":         `role`,
}

// UsageReport sums the ledger since since, grouped by "repo",
// "installation", "model" or "role", biggest cost (then tokens) first.
func (s *Store) UsageReport(ctx context.Context, since time.Time, by string) ([]UsageRow, error) {
	key, ok := usageGroups[by]
	if !ok {
		return nil, fmt.Errorf("usage report: cannot group by %q (repo, installation, model or role)", by)
	}
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT `+key+` AS k, COUNT(*), CAST(SUM(prompt_tokens) AS BIGINT),
		CAST(SUM(cached_tokens) AS BIGINT), CAST(SUM(completion_tokens) AS BIGINT), SUM(cost)
		FROM usage_ledger WHERE at_ms >= ? GROUP BY k
		ORDER BY SUM(cost) DESC, SUM(prompt_tokens + completion_tokens) DESC, k`), since.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("usage report: %w", err)
	}
	defer rows.Close()
	var out []UsageRow
	for rows.Next() {
		var r UsageRow
		if err := rows.Scan(&r.Key, &r.Calls, &r.PromptTokens, &r.CachedTokens, &r.CompletionTokens, &r.Cost); err != nil {
			return nil, fmt.Errorf("usage report: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("usage report: %w", err)
	}
	return out, nil
}
