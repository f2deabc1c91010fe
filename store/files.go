package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/issuesmith/issuesmith/internal/redact"
)

// OpenMigrated opens the database dsn names (Open) and brings its schema up
// to date (Migrate): what a process that serves from the database does at
// start.
func OpenMigrated(ctx context.Context, dsn string) (*Store, error) {
	st, err := Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if _, err := st.Migrate(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// FilesOf returns the files of the SQLite database dsn names — the
// database and its journal files (-wal, -shm, -journal), as dsn spells the
// path — so a command indexing a checkout can leave its own database out;
// nothing for PostgreSQL.
func FilesOf(dsn string) []string {
	if isPostgres(dsn) {
		return nil
	}
	path := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite://"), "file:")
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if path == "" {
		path = DefaultDSN
	}
	return []string{path, path + "-wal", path + "-shm", path + "-journal"}
}

// CheckDSN reports a dsn Open could never use, whatever the database's
// state: a PostgreSQL URL that does not parse. A database that does not
// answer is not its concern (bot serve starts without it and waits).
func CheckDSN(dsn string) error {
	if !isPostgres(dsn) {
		return nil
	}
	if _, err := pgxpool.ParseConfig(dsn); err != nil {
		return fmt.Errorf("open postgres %s: %w", redact.URL(dsn), dsnSecrets(dsn).Err(err))
	}
	return nil
}
