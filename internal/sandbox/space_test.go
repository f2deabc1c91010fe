//go:build linux

package sandbox_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// TestFreeSpaceFloor: below the floor no sandboxed command starts, and the
// error says why in words a comment can carry; above it commands run.
func TestFreeSpaceFloor(t *testing.T) {
	t.Parallel()
	need(t)
	dir := t.TempDir()
	free := sandbox.FreeSpace(dir)
	if free == 0 {
		t.Skip("statfs unavailable")
	}
	high, err := sandbox.NewCaches(t.TempDir(), sandbox.CacheOptions{MinFree: free + 1<<40})
	must(t, err)
	_, err = sandbox.Policy{Caches: high}.Command(t.Context(), dir, []string{"true"}, os.Environ())
	var low *sandbox.LowSpaceError
	if !errors.As(err, &low) || !errors.Is(err, sandbox.ErrLowSpace) || !strings.Contains(err.Error(), "ISSUESMITH_MIN_FREE_SPACE") {
		t.Fatalf("below the floor: %v", err)
	}
	ok, err := sandbox.NewCaches(t.TempDir(), sandbox.CacheOptions{MinFree: sandbox.MiB})
	must(t, err)
	if out, err := runErr(t, sandbox.Policy{Caches: ok}, dir, "echo started"); err != nil || !strings.Contains(out, "started") {
		t.Fatalf("above the floor: %v %s", err, out)
	}
	if err := sandbox.CheckSpace(dir, 0); err != nil {
		t.Errorf("no floor refused: %v", err)
	}
}
