package main

import (
	"strings"

	"github.com/issuesmith/issuesmith/store"
)

// storeFilesIn returns the repo-relative paths of the SQLite database dsn
// names and its journal files (-wal, -shm, -journal) when it lies inside
// the checkout dir; nothing for PostgreSQL or a database elsewhere.
func storeFilesIn(dir, dsn string) []string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return nil
	}
	path := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite://"), "file:")
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if path == "" {
		path = store.DefaultDSN
	}
	rel := pathIn(dir, path)
	if rel == "" {
		return nil
	}
	return []string{rel, rel + "-wal", rel + "-shm", rel + "-journal"}
}
