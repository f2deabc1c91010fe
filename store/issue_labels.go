package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// SwapIssueLabels records labels as the labels owner/repo#issue has now
// and returns the ones recorded before; seen is false when none were (the
// first label delivery of the issue). Names are kept as given, one per
// line; owner and repo are compared without case, as the forges do.
func (s rw) SwapIssueLabels(ctx context.Context, owner, repo string, issue int, labels []string) (before []string, seen bool, err error) {
	owner, repo = strings.ToLower(owner), strings.ToLower(repo)
	var prev string
	err = s.c.queryRow(ctx, `SELECT labels FROM issue_labels WHERE owner = ? AND repo = ? AND issue = ?`,
		owner, repo, issue).Scan(&prev)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, false, fmt.Errorf("read the labels of %s/%s#%d: %w", owner, repo, issue, err)
	default:
		seen = true
		if prev != "" {
			before = strings.Split(prev, "\n")
		}
	}
	_, err = s.c.exec(ctx, `INSERT INTO issue_labels (owner, repo, issue, labels, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (owner, repo, issue) DO UPDATE SET labels = excluded.labels, updated_at = excluded.updated_at`,
		owner, repo, issue, strings.Join(labels, "\n"), s.unix())
	if err != nil {
		return nil, false, fmt.Errorf("record the labels of %s/%s#%d: %w", owner, repo, issue, err)
	}
	return before, seen, nil
}

// RepoInstallations lists the installations owner/repo is known under
// (known_repos), compared without case.
func (s rw) RepoInstallations(ctx context.Context, owner, repo string) ([]int64, error) {
	rows, err := s.c.query(ctx, `SELECT DISTINCT installation_id FROM known_repos
		WHERE LOWER(owner) = LOWER(?) AND LOWER(repo) = LOWER(?)`, owner, repo)
	if err != nil {
		return nil, fmt.Errorf("read the installations of %s/%s: %w", owner, repo, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("read the installations of %s/%s: %w", owner, repo, err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// PRNumbers lists the pull requests of owner/repo's newest runs (at most
// limit, newest first): where a forge's CI event names a commit but no
// pull request (Gitea's commit status), the workflow asks the forge which
// of them has that head.
func (s rw) PRNumbers(ctx context.Context, owner, repo string, limit int) ([]int, error) {
	rows, err := s.c.query(ctx, `SELECT pr_number FROM runs WHERE owner = ? AND repo = ? AND pr_number <> 0
		GROUP BY pr_number ORDER BY MAX(id) DESC LIMIT ?`, owner, repo, limit)
	if err != nil {
		return nil, fmt.Errorf("list the pull requests of %s/%s: %w", owner, repo, err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("list the pull requests of %s/%s: %w", owner, repo, err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
