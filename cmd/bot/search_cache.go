package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/issuesmith/issuesmith/summaries"
)

// searchCacheEnv names the environment variable that sets the folder of
// `bot search`'s persistent index; "off" disables it.
const searchCacheEnv = "ISSUESMITH_SEARCH_CACHE"

// searchCacheDir returns the folder of persistent search indexes: the
// flag, else $ISSUESMITH_SEARCH_CACHE, else <user cache dir>/issuesmith/search.
// "" means no persistent index.
func searchCacheDir(flag string) string {
	dir := flag
	if dir == "" {
		dir = os.Getenv(searchCacheEnv)
	}
	if dir == "off" {
		return ""
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(base, "issuesmith", "search")
	}
	return dir
}

// indexFile is the snapshot file of the checkout at dir: one per checkout,
// named by the hash of its absolute, symlink-free path. Which files are
// still valid is decided per file by size and modification time, so a new
// commit or an edit re-parses only what changed.
func indexFile(cacheDir, dir string) string {
	abs, err := filepath.Abs(dir)
	if err == nil {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cacheDir, hex.EncodeToString(sum[:12])+".gob")
}

// loadIndex builds the index of src, starting from the persistent snapshot
// in cacheDir when there is one and writing the new snapshot back ("" for
// cacheDir: a plain Build). A snapshot that cannot be read or written costs
// a full build, never a failure.
func loadIndex(ctx context.Context, src summaries.Source, cacheDir string) (*summaries.Index, error) {
	if cacheDir == "" {
		return summaries.Build(ctx, src, summaries.Options{})
	}
	file := indexFile(cacheDir, src.Dir())
	var ix *summaries.Index
	var err error
	if f, oerr := os.Open(file); oerr == nil {
		ix, _, err = summaries.Load(ctx, src, f, summaries.Options{})
		f.Close()
	} else {
		ix, _, err = summaries.Load(ctx, src, nil, summaries.Options{})
	}
	if err != nil {
		return nil, err
	}
	if st := ix.LastStats(); st.Parsed > 0 || st.Removed > 0 {
		if err := saveIndex(ix, file); err != nil {
			fmt.Fprintf(os.Stderr, "bot search: keeping the index: %v\n", err)
		}
	}
	return ix, nil
}

// saveIndex writes the snapshot to a temporary file and renames it over
// file, so a concurrent reader sees the old or the new one, never half.
func saveIndex(ix *summaries.Index, file string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".index-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := ix.Save(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}
