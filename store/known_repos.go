package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// KnownRepo is a repository the bot has worked on under one installation.
type KnownRepo struct {
	InstallationID int64
	Owner          string
	Repo           string
	FirstSeen      time.Time
	LastSeen       time.Time
}

// NoteRepo records that the bot works on owner/repo under installationID
// now: known from now on if it was not, last seen now. OpenRun notes the
// repository of the run it creates, in the same transaction.
func (s rw) NoteRepo(ctx context.Context, installationID int64, owner, repo string) error {
	now := s.unix()
	_, err := s.c.exec(ctx, `INSERT INTO known_repos (installation_id, owner, repo, first_seen, last_seen)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (installation_id, owner, repo) DO UPDATE SET last_seen = excluded.last_seen`,
		installationID, owner, repo, now, now)
	if err != nil {
		return fmt.Errorf("note repository %s/%s: %w", owner, repo, err)
	}
	return nil
}

// KnownRepos lists every known repository once, by "owner/name", with the
// installation it was last seen under (a repository moved between
// installations is reached through the newer one).
func (s *Store) KnownRepos(ctx context.Context) ([]KnownRepo, error) {
	rows, err := s.c.query(ctx, `SELECT installation_id, owner, repo, first_seen, last_seen FROM known_repos
		ORDER BY owner, repo, last_seen DESC, installation_id DESC`)
	if err != nil {
		return nil, fmt.Errorf("list known repositories: %w", err)
	}
	defer rows.Close()
	var out []KnownRepo
	for rows.Next() {
		var k KnownRepo
		var first, last int64
		if err := rows.Scan(&k.InstallationID, &k.Owner, &k.Repo, &first, &last); err != nil {
			return nil, fmt.Errorf("list known repositories: %w", err)
		}
		k.FirstSeen, k.LastSeen = time.Unix(first, 0), time.Unix(last, 0)
		if n := len(out); n > 0 && out[n-1].Owner == k.Owner && out[n-1].Repo == k.Repo {
			out[n-1].FirstSeen = minTime(out[n-1].FirstSeen, k.FirstSeen)
			continue // an older installation's row
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list known repositories: %w", err)
	}
	return out, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// ForgetRepos deletes what installationID knows: every repository when
// repos is empty (the App was uninstalled), else the listed "owner/name"
// ones (removed from the installation; compared without case, as GitHub
// does). It returns how many it forgot.
func (s rw) ForgetRepos(ctx context.Context, installationID int64, repos []string) (int64, error) {
	if len(repos) == 0 {
		n, err := s.c.exec(ctx, `DELETE FROM known_repos WHERE installation_id = ?`, installationID)
		if err != nil {
			return 0, fmt.Errorf("forget the repositories of installation %d: %w", installationID, err)
		}
		return n, nil
	}
	var total int64
	for _, full := range repos {
		owner, repo, ok := strings.Cut(full, "/")
		if !ok {
			return total, fmt.Errorf("forget repository %q: not owner/name", full)
		}
		n, err := s.c.exec(ctx, `DELETE FROM known_repos WHERE installation_id = ? AND LOWER(owner) = LOWER(?) AND LOWER(repo) = LOWER(?)`,
			installationID, owner, repo)
		if err != nil {
			return total, fmt.Errorf("forget repository %s of installation %d: %w", full, installationID, err)
		}
		total += n
	}
	return total, nil
}
