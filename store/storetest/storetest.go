package storetest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/issuesmith/issuesmith/store"
)

// PostgresBins is where the Debian postgresql package puts its binaries
// (one directory per major version; the newest is used).
const PostgresBins = "/usr/lib/postgresql/*/bin"

// postgresBin returns the newest installed PostgreSQL bin directory, or "".
func postgresBin() string {
	dirs, _ := filepath.Glob(PostgresBins)
	best, bestVer := "", -1
	for _, d := range dirs {
		v, err := strconv.Atoi(filepath.Base(filepath.Dir(d)))
		if err != nil || v <= bestVer {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			best, bestVer = d, v
		}
	}
	return best
}

// RequireEnv, when set to 1, turns a missing PostgreSQL into a test failure
// instead of a skip (CI sets it).
const RequireEnv = "ISSUESMITH_REQUIRE_POSTGRES"

// SQLite opens and migrates a fresh SQLite store in t.TempDir().
func SQLite(t testing.TB) *store.Store {
	t.Helper()
	return open(t, filepath.Join(t.TempDir(), "issuesmith.db"))
}

func open(t testing.TB, dsn string) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return s
}

// Server is a PostgreSQL server private to one test.
type Server struct {
	port             int
	n                atomic.Int64
	bin, dir, asUser string
	opts             string
}

// StartPostgres starts a PostgreSQL server for t and stops it when t ends.
// Without the binaries it skips t, or fails it when RequireEnv is 1.
func StartPostgres(t testing.TB) *Server {
	t.Helper()
	bin := postgresBin()
	if bin == "" {
		msg := fmt.Sprintf("PostgreSQL binaries not found in %s (apt-get install postgresql)", PostgresBins)
		if os.Getenv(RequireEnv) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir, err := os.MkdirTemp("", "issuesmith-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	asUser := ownDir(t, dir)
	port := freePort(t)
	run(t, asUser, filepath.Join(bin, "initdb"), "-D", dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions")
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off", port, dir)
	run(t, asUser, filepath.Join(bin, "pg_ctl"), "-D", dir, "-o", opts, "-l", filepath.Join(dir, "server.log"), "-w", "-t", "60", "start")
	srv := &Server{port: port, bin: bin, dir: dir, asUser: asUser, opts: opts}
	t.Cleanup(func() { srv.Stop(t) })
	return srv
}

// Stop stops the server at once (an outage); Start brings it back.
func (s *Server) Stop(t testing.TB) {
	cmd := command(s.asUser, filepath.Join(s.bin, "pg_ctl"), "-D", s.dir, "-m", "immediate", "-w", "stop")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Logf("stop postgres: %v\n%s", err, out)
	}
}

// Start starts a stopped server again on the same port and data.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	run(t, s.asUser, filepath.Join(s.bin, "pg_ctl"), "-D", s.dir, "-o", s.opts, "-l", filepath.Join(s.dir, "server.log"), "-w", "-t", "60", "start")
}

// DSN creates a fresh database on the server and returns its URL.
func (s *Server) DSN(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("test_%d", s.n.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.url("postgres"))
	if err != nil {
		t.Fatalf("connect to test postgres: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	return s.url(name)
}

// Open opens and migrates a store on a fresh database of the server.
func (s *Server) Open(t testing.TB) *store.Store {
	t.Helper()
	return open(t, s.DSN(t))
}

func (s *Server) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// ownDir hands dir to the postgres user when we are root (PostgreSQL
// refuses to run as root) and returns the user to run as, "" for ourselves.
func ownDir(t testing.TB, dir string) string {
	if os.Geteuid() != 0 {
		return ""
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("running as root needs the postgres user to start PostgreSQL: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	return "postgres"
}

func command(asUser, name string, args ...string) *exec.Cmd {
	if asUser == "" {
		return exec.Command(name, args...)
	}
	return exec.Command("runuser", append([]string{"-u", asUser, "--", name}, args...)...)
}

func run(t testing.TB, asUser, name string, args ...string) {
	t.Helper()
	cmd := command(asUser, name, args...)
	cmd.Dir = os.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
