//go:build !unix

package coder

import "os/exec"

// setProcessGroup is a no-op where process groups do not exist; the context
// still kills the direct child.
func setProcessGroup(*exec.Cmd) {}
