package store

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"modernc.org/sqlite"
)

// Write is one write the database made durable: a transaction that
// changed rows of ours or River's jobs (a statement outside a transaction
// is its own), numbered in the order of this process's commits.
// River's own housekeeping (leader election, queue heartbeats) is not
// counted: it happens on timers, not because of the work.
type Write struct {
	N      int64
	Tables []string
	// Committed: the write is durable already (PostgreSQL: the hook runs
	// after the commit); false: it is about to commit (SQLite: the hook
	// runs in SQLite's commit hook, and a kill there loses the write).
	Committed bool
}

// WriteHook is told of every Write (a test hook in the database driver for
// the crash and fault-injection tests; it is never set in production). A
// hook may kill the process. An error it returns is a transient database
// failure: on SQLite that commit fails and is rolled back; on PostgreSQL
// (the write is durable already) the connection drops under the next
// statement that writes (database/sql retries a dropped connection by
// itself; a pgx transaction, as in Tx and River, sees the error).
type WriteHook func(w Write) error

var writeHook struct {
	mu   sync.Mutex
	fn   WriteHook
	n    int64
	fail bool // PostgreSQL: fail the next write statement
}

// SetWriteHook installs fn for the stores opened after it (nil removes it).
// Call it once at process start, before Open.
func SetWriteHook(fn WriteHook) {
	writeHook.mu.Lock()
	defer writeHook.mu.Unlock()
	writeHook.fn = fn
	if fn != nil {
		registerSQLiteHook.Do(func() { sqlite.RegisterConnectionHook(sqliteWriteHook) })
	}
}

var registerSQLiteHook sync.Once

func hookSet() bool {
	writeHook.mu.Lock()
	defer writeHook.mu.Unlock()
	return writeHook.fn != nil
}

// housekeeping are River's tables written on timers.
var housekeeping = []string{"river_leader", "river_queue", "river_client", "river_client_queue", "river_migration"}

func counted(table string) bool { return table != "" && !slices.Contains(housekeeping, table) }

// wrote numbers one write and tells the hook.
func wrote(tables []string, committed bool) error {
	writeHook.mu.Lock()
	fn := writeHook.fn
	if fn == nil {
		writeHook.mu.Unlock()
		return nil
	}
	writeHook.n++
	w := Write{N: writeHook.n, Tables: tables, Committed: committed}
	writeHook.mu.Unlock()
	err := fn(w)
	if err != nil && committed {
		writeHook.mu.Lock()
		writeHook.fail = true
		writeHook.mu.Unlock()
	}
	return err
}

// sqliteWriteHook watches one SQLite connection: the tables each
// transaction changes (pre-update hook) and its commit (commit hook).
func sqliteWriteHook(c sqlite.ExecQuerierContext, _ string) error {
	hr, ok := c.(sqlite.HookRegisterer)
	if !ok || !hookSet() {
		return nil
	}
	var tables []string // touched only by this connection's own calls
	hr.RegisterPreUpdateHook(func(d sqlite.SQLitePreUpdateData) {
		if counted(d.TableName) && !slices.Contains(tables, d.TableName) {
			tables = append(tables, d.TableName)
		}
	})
	hr.RegisterRollbackHook(func() { tables = nil })
	hr.RegisterCommitHook(func() int32 {
		t := tables
		tables = nil
		if len(t) == 0 {
			return 0
		}
		if wrote(t, false) != nil {
			return 1 // the commit becomes a rollback and fails
		}
		return 0
	})
	return nil
}

// pgWriteTracer is the PostgreSQL side: pgx's query tracer sees each
// statement's command tag and the connection's transaction status.
type pgWriteTracer struct {
	mu    sync.Mutex
	dirty map[*pgx.Conn][]string // tables written by the open transaction
}

type sqlKey struct{}

var writeVerb = regexp.MustCompile(`(?i)\b(insert\s+into|update|delete\s+from)\s+("?[a-z_]+"?\.)?"?([a-z_]+)`)

// writtenTables are the tables a statement's text writes to ("set" is the
// upsert's ON CONFLICT DO UPDATE SET, no table).
func writtenTables(q string) []string {
	var out []string
	for _, m := range writeVerb.FindAllStringSubmatch(q, -1) {
		if t := strings.ToLower(m[3]); counted(t) && t != "set" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func (t *pgWriteTracer) TraceQueryStart(ctx context.Context, c *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	ctx = context.WithValue(ctx, sqlKey{}, d.SQL)
	writeHook.mu.Lock()
	fail := writeHook.fail && (len(writtenTables(d.SQL)) > 0 || strings.EqualFold(strings.TrimSpace(d.SQL), "commit"))
	if fail {
		writeHook.fail = false
	}
	writeHook.mu.Unlock()
	if fail {
		// The connection drops under the statement, as in an outage.
		_ = c.PgConn().Close(context.WithoutCancel(ctx))
	}
	return ctx
}

func (t *pgWriteTracer) TraceQueryEnd(ctx context.Context, c *pgx.Conn, d pgx.TraceQueryEndData) {
	q, _ := ctx.Value(sqlKey{}).(string)
	if d.Err != nil {
		return
	}
	t.mu.Lock()
	var done []string
	switch tag := d.CommandTag.String(); {
	case tag == "COMMIT":
		done = t.dirty[c]
		delete(t.dirty, c)
	case tag == "ROLLBACK":
		delete(t.dirty, c)
	case d.CommandTag.RowsAffected() > 0:
		for _, tb := range writtenTables(q) {
			if !slices.Contains(t.dirty[c], tb) {
				t.dirty[c] = append(t.dirty[c], tb)
			}
		}
		if c.PgConn().TxStatus() == 'I' { // not in a transaction: committed
			done = t.dirty[c]
			delete(t.dirty, c)
		}
	}
	t.mu.Unlock()
	if len(done) > 0 {
		_ = wrote(done, true) // an error arms the next write's failure
	}
}

// traceWrites adds the write tracer to a pool's configuration when a hook
// is set.
func traceWrites(cfg *pgxpool.Config) {
	if hookSet() {
		cfg.ConnConfig.Tracer = &pgWriteTracer{dirty: map[*pgx.Conn][]string{}}
	}
}
