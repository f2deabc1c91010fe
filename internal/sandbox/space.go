package sandbox

import (
	"errors"
	"fmt"
)

// LowSpaceError refuses a run: the file system holding Path has less free
// space than the floor. Its message is written for the comment.
type LowSpaceError struct {
	Path        string
	Free, Floor int64
}

func (e *LowSpaceError) Error() string {
	return fmt.Sprintf("not started: the bot's disk has %s free, below the %s it keeps free (ISSUESMITH_MIN_FREE_SPACE); "+
		"the run can be retried once the operator frees space", Size(e.Free), Size(e.Floor))
}

// ErrLowSpace is matched by every *LowSpaceError (errors.Is).
var ErrLowSpace = errors.New("low disk space")

// Is makes errors.Is(err, ErrLowSpace) true.
func (e *LowSpaceError) Is(target error) bool { return target == ErrLowSpace }

// FreeSpace is the space left for the bot's user on path's file system
// (0 when it cannot be read).
func FreeSpace(path string) int64 { return freeBytes(path) }

// CheckSpace returns a *LowSpaceError when path's file system has less
// than floor bytes free; floor 0, or a file system it cannot read, passes.
// The workflow calls it before a run (or before the coder starts) and
// posts the error's message as the run's comment.
func CheckSpace(path string, floor int64) error {
	if floor <= 0 {
		return nil
	}
	free := freeBytes(path)
	if free == 0 || free >= floor {
		return nil
	}
	return &LowSpaceError{Path: path, Free: free, Floor: floor}
}
