package server

import (
	"errors"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// /readyz names how this host bounds sandboxed commands and warns when
// the data directory's disk is below (or near) the free-space floor;
// CheckSpace refuses a run there with a *sandbox.LowSpaceError.
func TestReadyzSandboxLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	free := sandbox.FreeSpace(dir)
	if free == 0 {
		t.Skip("statfs unavailable")
	}
	var b strings.Builder
	cfg := &config.Server{DataDir: dir}
	cfg.Sandbox.MinFreeSpace = config.Bytes(free + 1<<40)
	sandboxLines(&b, cfg)
	out := b.String()
	if sandbox.Check() == nil && !strings.Contains(out, "sandbox limits: ") {
		t.Errorf("no limits line:\n%s", out)
	}
	if !strings.Contains(out, "warning: disk: ") || !strings.Contains(out, "runs are refused") {
		t.Errorf("no low-space warning:\n%s", out)
	}
	if err := CheckSpace(cfg); !errors.Is(err, sandbox.ErrLowSpace) {
		t.Errorf("CheckSpace below the floor: %v", err)
	}
	cfg.Sandbox.MinFreeSpace = config.Bytes(sandbox.MiB)
	b.Reset()
	sandboxLines(&b, cfg)
	if strings.Contains(b.String(), "warning: disk") {
		t.Errorf("a warning with plenty of space:\n%s", b.String())
	}
	if err := CheckSpace(cfg); err != nil {
		t.Errorf("CheckSpace above the floor: %v", err)
	}
}
