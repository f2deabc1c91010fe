package edit

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// cleanPath validates a model-written path and returns its clean slash form.
// Absolute paths, paths that leave the root lexically and empty paths are
// refused; symlinks are checked by os.Root when the file is opened.
func cleanPath(p string) (string, error) {
	p = strings.TrimSpace(p)
	p = filepath.ToSlash(p)
	if p == "" {
		return "", errors.New("empty path")
	}
	if strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return "", fmt.Errorf("path %q is absolute; give a path relative to the repository root", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return "", fmt.Errorf("path %q contains ..; give a path inside the repository", p)
		}
	}
	c := path.Clean(p)
	if c == "." || !filepath.IsLocal(filepath.FromSlash(c)) {
		return "", fmt.Errorf("path %q is not a file inside the repository", p)
	}
	return c, nil
}

// loadFile reads one file through the root. It reports (nil, false, nil) for
// a missing file and a model-fixable error (ReasonBadPath / ReasonNotText)
// for symlinks, directories or paths that escape the root.
func loadFile(r *os.Root, p string) (data string, mode fs.FileMode, exists bool, reason Reason, err error) {
	name := filepath.FromSlash(p)
	fi, err := r.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", 0, false, "", nil
	case err != nil:
		return "", 0, false, ReasonBadPath, fmt.Errorf("path %q cannot be used: %w", p, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return "", 0, false, ReasonBadPath, fmt.Errorf("path %q is a symbolic link; edit the file it points to", p)
	case !fi.Mode().IsRegular():
		return "", 0, false, ReasonNotText, fmt.Errorf("path %q is not a regular file", p)
	}
	data, err = readString(r, name, fi.Size())
	if err != nil {
		return "", 0, false, ReasonBadPath, fmt.Errorf("read %q: %w", p, err)
	}
	return data, fi.Mode().Perm(), true, "", nil
}

// readString reads a file straight into a string: the document's lines are
// substrings of it, so a large file is not read into bytes and then copied.
func readString(r *os.Root, name string, size int64) (string, error) {
	f, err := r.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	b.Grow(int(size) + 1)
	if _, err := io.Copy(&b, f); err != nil {
		return "", err
	}
	return b.String(), nil
}

// writeAtomic writes data to p through the root: a temporary file in the same
// folder, its mode set, then renamed over the target.
func writeAtomic(r *os.Root, p string, data []byte, mode fs.FileMode) error {
	name := filepath.FromSlash(p)
	dir := filepath.Dir(name)
	if dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create folder for %s: %w", p, err)
		}
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return fmt.Errorf("temp name for %s: %w", p, err)
	}
	tmp := filepath.Join(dir, "."+filepath.Base(name)+".issuesmith-"+hex.EncodeToString(rnd[:]))
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("create temp file for %s: %w", p, err)
	}
	_, werr := f.Write(data)
	merr := f.Chmod(mode) // the umask may have narrowed the mode given to OpenFile
	cerr := f.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		_ = r.Remove(tmp)
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := r.Rename(tmp, name); err != nil {
		_ = r.Remove(tmp)
		return fmt.Errorf("replace %s: %w", p, err)
	}
	return nil
}
