package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

//go:embed migrations/*/*.sql
var migrationFS embed.FS

// Migration is one versioned schema change of ours.
type Migration struct {
	Version int
	Name    string
	sql     string
}

// MigrateResult says what Migrate changed.
type MigrateResult struct {
	Applied      []int // our versions applied by this call
	Version      int   // our schema version afterwards
	RiverApplied []int // River's versions applied by this call
}

// Migrations lists the store's migrations for the store's dialect, in order.
func (s *Store) Migrations() ([]Migration, error) {
	dir := path.Join("migrations", string(s.dialect))
	entries, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("migration %s: name must be NNNN_name.sql", name)
		}
		b, err := migrationFS.ReadFile(path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", name, err)
		}
		out = append(out, Migration{Version: v, Name: name, sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Migrate brings our schema and River's up to date. It is safe to run while
// another process does the same: PostgreSQL takes an advisory lock, SQLite
// runs each migration in an immediate (write-locked) transaction.
func (s *Store) Migrate(ctx context.Context) (*MigrateResult, error) {
	res := &MigrateResult{}
	if err := s.migrateOurs(ctx, res); err != nil {
		return nil, err
	}
	applied, err := s.migrateRiver(ctx)
	if err != nil {
		return nil, err
	}
	res.RiverApplied = applied
	return res, nil
}

// Version returns our current schema version (0 before the first migration).
func (s *Store) Version(ctx context.Context) (int, error) {
	if _, err := s.exec(ctx, createVersionTable); err != nil {
		return 0, fmt.Errorf("create schema_migrations: %w", err)
	}
	var v sql.NullInt64
	if err := s.queryRow(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return int(v.Int64), nil
}

const createVersionTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at BIGINT NOT NULL
)`

func (s *Store) migrateOurs(ctx context.Context, res *MigrateResult) error {
	migs, err := s.Migrations()
	if err != nil {
		return err
	}
	if _, err := s.Version(ctx); err != nil {
		return err
	}
	for _, m := range migs {
		done, err := s.applyOne(ctx, m)
		if err != nil {
			return err
		}
		if done {
			res.Applied = append(res.Applied, m.Version)
		}
		res.Version = m.Version
	}
	return nil
}

// applyOne applies m unless it already is, in one transaction.
func (s *Store) applyOne(ctx context.Context, m Migration) (applied bool, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("migration %s: begin: %w", m.Name, err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback() // the migration's own error is the one to report
		}
	}()
	if s.dialect == Postgres {
		// Serialises concurrent migrators until commit.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7493101)`); err != nil {
			return false, fmt.Errorf("migration %s: lock: %w", m.Name, err)
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, s.rebind(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), m.Version).Scan(&n); err != nil {
		return false, fmt.Errorf("migration %s: %w", m.Name, err)
	}
	if n > 0 {
		return false, tx.Commit()
	}
	for _, stmt := range splitStatements(m.sql) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return false, fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, s.rebind(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`), m.Version, m.Name, s.unix()); err != nil {
		return false, fmt.Errorf("migration %s: record: %w", m.Name, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("migration %s: commit: %w", m.Name, err)
	}
	return true, nil
}

// splitStatements splits a migration file on semicolons that end a line,
// dropping comment-only pieces. Our migrations contain no procedural code.
func splitStatements(src string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "--") || trimmed == "" {
			continue
		}
		cur.WriteString(line + "\n")
		if strings.HasSuffix(trimmed, ";") {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
	}
	if rest := strings.TrimSpace(cur.String()); rest != "" {
		out = append(out, rest)
	}
	return out
}

func (s *Store) migrateRiver(ctx context.Context) ([]int, error) {
	var (
		res *rivermigrate.MigrateResult
		err error
	)
	switch s.dialect {
	case Postgres:
		var m *rivermigrate.Migrator[pgxTx]
		m, err = rivermigrate.New(riverpgxv5.New(s.pool), nil)
		if err == nil {
			res, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		}
	default:
		var m *rivermigrate.Migrator[*sql.Tx]
		m, err = rivermigrate.New(riversqlite.New(s.db), nil)
		if err == nil {
			res, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("migrate river: %w", err)
	}
	var out []int
	for _, v := range res.Versions {
		out = append(out, v.Version)
	}
	return out, nil
}
