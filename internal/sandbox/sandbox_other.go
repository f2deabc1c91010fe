//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"os/exec"
)

// Install tells an operator how to get bubblewrap.
const Install = "bubblewrap needs Linux"

// ErrUnavailable is wrapped by Check's error: bubblewrap is Linux only.
var ErrUnavailable = fmt.Errorf("bubblewrap sandbox unavailable")

// Policy is Linux's; see sandbox.go.
type Policy struct {
	ReadOnly, Writable, Hide []string
	Network                  bool
}

// Check always fails off Linux.
func Check() error { return fmt.Errorf("%w: %s", ErrUnavailable, Install) }

// Command always fails off Linux.
func (p Policy) Command(context.Context, string, []string, []string) (*exec.Cmd, error) {
	return nil, Check()
}
