package server

import (
	"fmt"
	"io"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// sandboxLines are /readyz's lines about the sandbox: how this host bounds
// a sandboxed command (cgroups through systemd, or rlimits and the bot's
// watchdog), and a warning when the data directory's disk is short of
// space (below twice ISSUESMITH_MIN_FREE_SPACE; runs are refused below it).
func sandboxLines(w io.Writer, cfg *config.Server) {
	if err := sandbox.Check(); err != nil {
		fmt.Fprintln(w, "warning: sandbox:", err)
	} else {
		fmt.Fprintln(w, "sandbox limits:", sandbox.Mechanism())
	}
	floor := int64(cfg.Sandbox.MinFreeSpace)
	if floor <= 0 {
		return
	}
	free := sandbox.FreeSpace(cfg.DataDir)
	switch {
	case free == 0:
	case free < floor:
		fmt.Fprintf(w, "warning: disk: %s free on %s, below ISSUESMITH_MIN_FREE_SPACE (%s): runs are refused\n",
			sandbox.Size(free), cfg.DataDir, sandbox.Size(floor))
	case free < 2*floor:
		fmt.Fprintf(w, "warning: disk: %s free on %s, close to ISSUESMITH_MIN_FREE_SPACE (%s)\n",
			sandbox.Size(free), cfg.DataDir, sandbox.Size(floor))
	}
}

// CheckSpace refuses a run when the data directory's disk has less than
// ISSUESMITH_MIN_FREE_SPACE free: a *sandbox.LowSpaceError (errors.Is
// sandbox.ErrLowSpace) whose message is meant for the comment.
// The workflow calls it before a stage that clones, builds or tests.
func CheckSpace(cfg *config.Server) error {
	return sandbox.CheckSpace(cfg.DataDir, int64(cfg.Sandbox.MinFreeSpace))
}
