//go:build unix

package coder

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the command in its own process group and makes the
// context's cancellation kill the whole group, so a check command that forks
// (go test, make) cannot outlive its timeout.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
