package repo

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// linkObjects gives a run's object store the cached clone's objects: pack
// files and loose objects are hard-linked (git never rewrites an object file
// in place, so sharing the inode is safe) or copied when linking fails, as
// across file systems. info/ and other bookkeeping files are not shared.
// The caller holds the mirror's lock, so no fetch adds or drops files
// meanwhile.
func linkObjects(src, dst string) error {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel == "info" {
				return fs.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		target := filepath.Join(dst, rel)
		if err := os.Link(p, target); err == nil {
			return nil
		}
		return copyFile(p, target)
	})
	if err != nil {
		return fmt.Errorf("share objects with the run: %w", err)
	}
	return nil
}

// copyFile copies a read-only object file.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
