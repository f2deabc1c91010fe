package main

import (
	"context"
	"strings"

	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/summaries"
)

// excludedSource is a summaries.Source that leaves out some files: the
// issue file handed to a command, or the command's own database, when they
// lie inside the checkout being indexed.
type excludedSource struct {
	summaries.Source
	skip map[string]bool
}

// withoutFiles returns src without the repo-relative slash paths given
// (empty ones, from pathIn for files outside the checkout, are ignored).
func withoutFiles(src summaries.Source, paths ...string) summaries.Source {
	skip := map[string]bool{}
	for _, p := range paths {
		if p != "" {
			skip[p] = true
		}
	}
	if len(skip) == 0 {
		return src
	}
	return excludedSource{Source: src, skip: skip}
}

// Files lists the source's files without the skipped ones.
func (s excludedSource) Files(ctx context.Context) ([]string, error) {
	files, err := s.Source.Files(ctx)
	if err != nil {
		return nil, err
	}
	out := files[:0:0]
	for _, f := range files {
		if !s.skip[f] {
			out = append(out, f)
		}
	}
	return out, nil
}

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
