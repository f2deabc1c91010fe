package store

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
)

// conn is what the store's queries run on: the database itself, or one
// transaction (database/sql's for SQLite, pgx's for PostgreSQL, the types
// River's drivers take). Queries are written with ? placeholders.
type conn interface {
	exec(ctx context.Context, q string, args ...any) (rowsAffected int64, err error)
	queryRow(ctx context.Context, q string, args ...any) scanner
	query(ctx context.Context, q string, args ...any) (rows, error)
}

type scanner interface{ Scan(dest ...any) error }

type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// sqlConn runs queries on a *sql.DB or *sql.Tx.
type sqlConn struct {
	s  *Store
	db interface {
		ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
		QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
		QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	}
}

func (c sqlConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := c.db.ExecContext(ctx, c.s.rebind(q), args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c sqlConn) queryRow(ctx context.Context, q string, args ...any) scanner {
	return c.db.QueryRowContext(ctx, c.s.rebind(q), args...)
}

func (c sqlConn) query(ctx context.Context, q string, args ...any) (rows, error) {
	r, err := c.db.QueryContext(ctx, c.s.rebind(q), args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

// pgConn runs queries on a pgx transaction. A missing row is reported as
// sql.ErrNoRows, as database/sql does, so the queries read the same.
type pgConn struct {
	s  *Store
	tx pgx.Tx
}

func (c pgConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := c.tx.Exec(ctx, c.s.rebind(q), args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (c pgConn) queryRow(ctx context.Context, q string, args ...any) scanner {
	return pgRow{c.tx.QueryRow(ctx, c.s.rebind(q), args...)}
}

func (c pgConn) query(ctx context.Context, q string, args ...any) (rows, error) {
	return c.tx.Query(ctx, c.s.rebind(q), args...)
}

type pgRow struct{ r pgx.Row }

func (r pgRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if err == pgx.ErrNoRows { //nolint:errorlint // pgx returns it unwrapped
		return sql.ErrNoRows
	}
	return err
}
