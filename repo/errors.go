package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ErrOutsideRoot reports a path that leaves the workspace root: an absolute
// path, one climbing out with "..", or one passing through a symlink that
// points outside. It is a mistake the model can fix.
var ErrOutsideRoot = errors.New("path is outside the repository")

// ErrNotExist reports a path that does not exist in the workspace. It is a
// mistake the model can fix.
var ErrNotExist = errors.New("no such file or directory in the repository")

// ErrNotDir reports a directory operation on a path that is a file.
var ErrNotDir = errors.New("not a directory")

// ErrIsDir reports a file operation on a path that is a directory.
var ErrIsDir = errors.New("is a directory")

// escapeText is the text of os.Root's unexported "path escapes" error; the
// standard library offers no sentinel to test against.
const escapeText = "path escapes from parent"

// outside builds the error for a path that leaves the root.
func outside(path, why string) error {
	return fmt.Errorf("%q: %s: %w (use a path relative to the repository root)", path, why, ErrOutsideRoot)
}

// classify maps an error from an os.Root operation on path to one of the
// package's model-fixable sentinels where it is one, naming the path.
func classify(path string, err error) error {
	if err == nil {
		return nil
	}
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == escapeText {
		return outside(path, "it leads out of the repository (through \"..\" or a symlink)")
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%q: %w", path, ErrNotExist)
	}
	// Paths a model can get wrong in other ways: through a file, into a
	// symlink loop, a name too long, a file we may not read. None is our
	// failure, so none may end the run.
	for _, e := range []struct {
		errno syscall.Errno
		why   string
	}{
		{syscall.ENOTDIR, "a part of the path is a file, not a folder"},
		{syscall.ELOOP, "the path runs into a symlink loop"},
		{syscall.ENAMETOOLONG, "the name is too long"},
		{syscall.EACCES, "permission denied"},
	} {
		if errors.Is(err, e.errno) {
			return fmt.Errorf("%q: %s: %w", path, e.why, ErrNotExist)
		}
	}
	return fmt.Errorf("%q: %w", path, err)
}

// IsModelError reports whether err is a mistake in the path or arguments a
// model gave (outside the root, missing, a file where a directory was meant
// or the reverse, a bad pattern, a git submodule). Callers return such errors to the model as
// a tool result; every other error is the program's own failure.
func IsModelError(err error) bool {
	return errors.Is(err, ErrOutsideRoot) || errors.Is(err, ErrNotExist) ||
		errors.Is(err, ErrNotDir) || errors.Is(err, ErrIsDir) || errors.Is(err, ErrBadArgument) ||
		errors.Is(err, ErrSubmodule)
}

// ErrBadArgument reports a tool argument that cannot be used, such as an
// invalid regular expression or glob.
var ErrBadArgument = errors.New("bad argument")
