package summaries

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// SnapshotFile is the index snapshot of the checkout at dir inside cacheDir:
// one per checkout, named by the hash of its absolute, symlink-free path.
// Which files are still valid is decided per file by size and modification
// time (Load), so a new commit or an edit re-parses only what changed.
func SnapshotFile(cacheDir, dir string) string {
	abs, err := filepath.Abs(dir)
	if err == nil {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cacheDir, hex.EncodeToString(sum[:12])+".gob")
}

// LoadCached builds the index of src starting from its snapshot in cacheDir
// when there is one, and writes the new snapshot back when anything was
// parsed or removed ("" for cacheDir: a plain Build). A snapshot that
// cannot be read costs a full build; one that cannot be written is returned
// as saveErr beside a good index, never as a failure.
func LoadCached(ctx context.Context, src Source, cacheDir string, opts Options) (ix *Index, saveErr, err error) {
	if cacheDir == "" {
		ix, err = Build(ctx, src, opts)
		return ix, nil, err
	}
	file := SnapshotFile(cacheDir, src.Dir())
	if f, oerr := os.Open(file); oerr == nil {
		ix, _, err = Load(ctx, src, f, opts)
		f.Close()
	} else {
		ix, _, err = Load(ctx, src, nil, opts)
	}
	if err != nil {
		return nil, nil, err
	}
	if st := ix.LastStats(); st.Parsed > 0 || st.Removed > 0 {
		if err := saveSnapshot(ix, file); err != nil {
			return ix, fmt.Errorf("keep the index snapshot: %w", err), nil
		}
	}
	return ix, nil, nil
}

// saveSnapshot writes the snapshot to a temporary file and renames it over
// file, so a concurrent reader sees the old or the new one, never half.
func saveSnapshot(ix *Index, file string) error {
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
