package main

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/issuesmith/issuesmith/store"
)

// The server process's database write hook (store.SetWriteHook), set by
// the crash-after-every-write tests through the environment:
//
//	ISSUESMITH_E2E_KILL_AT=N   SIGKILL the process once exactly N writes are durable
//	ISSUESMITH_E2E_FAIL_AT=N   write N fails once (a transient database error)
//	ISSUESMITH_E2E_WRITE_LOG=f append "N tables" for every write to f
const (
	killAtEnv   = "ISSUESMITH_E2E_KILL_AT"
	failAtEnv   = "ISSUESMITH_E2E_FAIL_AT"
	writeLogEnv = "ISSUESMITH_E2E_WRITE_LOG"
	// fastRescueEnv=1: PostgreSQL's rescue of a killed process's jobs
	// after 5 s instead of 3 minutes (the lease lasts 3 s).
	fastRescueEnv = "ISSUESMITH_E2E_FAST_RESCUE"
)

func installWriteHook(log *slog.Logger) error {
	killAt, err := envInt(killAtEnv)
	if err != nil {
		return err
	}
	failAt, err := envInt(failAtEnv)
	if err != nil {
		return err
	}
	logPath := os.Getenv(writeLogEnv)
	if killAt == 0 && failAt == 0 && logPath == "" {
		return nil
	}
	var wlog *os.File
	if logPath != "" {
		if wlog, err = os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err != nil {
			return err
		}
	}
	store.SetWriteHook(func(w store.Write) error {
		if wlog != nil {
			fmt.Fprintf(wlog, "%d %s\n", w.N, strings.Join(w.Tables, ","))
		}
		// Durable writes so far: SQLite calls the hook before the commit.
		durable := w.N
		if !w.Committed {
			durable--
		}
		if killAt > 0 && durable == killAt {
			log.Warn("write hook: killing the process", "durable_writes", durable, "tables", w.Tables)
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
		if failAt > 0 && w.N == failAt {
			log.Warn("write hook: failing a write once", "write", w.N, "tables", w.Tables)
			return fmt.Errorf("injected transient failure at write %d", w.N)
		}
		return nil
	})
	return nil
}

func envInt(name string) (int64, error) {
	v := os.Getenv(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}
