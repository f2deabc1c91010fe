package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/issuesmith/issuesmith/internal/redact"
)

// Dialect names the database behind a Store.
type Dialect string

// The supported dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DefaultDSN is the database Open uses for "": a SQLite file in the working
// directory, so one machine needs no database server. The commands never
// pass "": config defaults to DefaultDSN in the state directory.
const DefaultDSN = "issuesmith.db"

// ErrNotFound is returned when a looked-up row does not exist.
var ErrNotFound = errors.New("not found")

// Store is an open database. It is safe for concurrent use. Close releases it.
type Store struct {
	rw      // the run, checkpoint and lease methods, on the database itself
	db      *sql.DB
	pool    *pgxpool.Pool // PostgreSQL only: River's pgx pool, shared by db
	dialect Dialect
	now     func() time.Time
	ckpt    *checkpointer // SQLite only (checkpoint.go)
}

// Open connects to dsn: a postgres:// or postgresql:// URL selects
// PostgreSQL; anything else is a SQLite file path (an optional sqlite:// or
// file: prefix is accepted; "" means DefaultDSN). SQLite is opened in WAL
// mode with a busy timeout. Open does not migrate: call Migrate.
func Open(ctx context.Context, dsn string) (*Store, error) {
	if isPostgres(dsn) {
		return openPostgres(ctx, dsn)
	}
	return openSQLite(ctx, dsn)
}

func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

func openSQLite(ctx context.Context, dsn string) (*Store, error) {
	path := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite://"), "file:")
	if path == "" {
		path = DefaultDSN
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	// The default lives in a state directory that may not exist yet.
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", abs, err)
	}
	// busy_timeout comes first so that switching to WAL waits for other
	// processes (bot migrate beside bot serve) instead of failing.
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	ckpt := "file:" + abs + "?" + q.Encode()
	q.Add("_pragma", "wal_autocheckpoint(0)") // the checkpointer's (checkpoint.go)
	db, err := sql.Open("sqlite", "file:"+abs+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", abs, err)
	}
	// SQLite runs one writer at a time; River does enough concurrent work
	// that several connections end in SQLITE_BUSY. One connection
	// serialises everything in this process (River's own advice).
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", abs, err)
	}
	cp, err := startCheckpointer(ckpt)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", abs, err)
	}
	s := newStore(db, nil, SQLite)
	s.ckpt = cp
	return s, nil
}

func openPostgres(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open postgres %s: %w", redact.URL(dsn), dsnSecrets(dsn).Err(err))
	}
	traceWrites(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres %s: %w", redact.URL(dsn), dsnSecrets(dsn).Err(err))
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres %s: %w", redact.URL(dsn), dsnSecrets(dsn).Err(err))
	}
	return newStore(stdlib.OpenDBFromPool(pool), pool, Postgres), nil
}

func newStore(db *sql.DB, pool *pgxpool.Pool, d Dialect) *Store {
	s := &Store{db: db, pool: pool, dialect: d, now: time.Now}
	s.rw = rw{st: s, c: sqlConn{s: s, db: db}}
	return s
}

// rw holds the queries that run both on the database and inside a Tx.
type rw struct {
	st *Store
	c  conn
}

func (s rw) unix() int64    { return s.st.unix() }
func (s rw) now() time.Time { return s.st.now() }

// dsnSecrets knows dsn's password, so that an error quoting it (pgx's
// parse errors quote the whole string) is printed without it.
func dsnSecrets(dsn string) redact.Secrets {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			return redact.New(pw)
		}
	}
	return redact.New()
}

// Dialect reports which database the store talks to.
func (s *Store) Dialect() Dialect { return s.dialect }

// DB returns the database/sql handle, for health checks and tests.
func (s *Store) DB() *sql.DB { return s.db }

// Ping checks that the database answers (for /readyz).
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// Close closes the database. Stop any Queue first.
func (s *Store) Close() error {
	err := s.db.Close()
	if cerr := s.ckpt.close(); err == nil {
		err = cerr
	}
	if s.pool != nil {
		s.pool.Close()
	}
	return err
}

// rebind turns ? placeholders into $n for PostgreSQL. Our queries never
// contain a literal question mark.
func (s *Store) rebind(q string) string {
	if s.dialect != Postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (s *Store) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, s.rebind(q), args...)
}

func (s *Store) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return s.db.QueryRowContext(ctx, s.rebind(q), args...)
}

func (s *Store) unix() int64 { return s.now().Unix() }

// SetClock replaces the clock the store stamps rows with (tests of time
// windows). Call it before the store is shared.
func (s *Store) SetClock(now func() time.Time) { s.now = now }
