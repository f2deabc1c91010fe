//go:build !linux

package sandbox

import (
	"context"
	"fmt"
)

// Install tells an operator how to get bubblewrap.
const Install = "bubblewrap needs Linux"

// ErrUnavailable is wrapped by Check's error: bubblewrap is Linux only.
var ErrUnavailable = fmt.Errorf("bubblewrap sandbox unavailable")

// Check always fails off Linux.
func Check() error { return fmt.Errorf("%w: %s", ErrUnavailable, Install) }

// Command always fails off Linux.
func (p Policy) Command(context.Context, string, []string, []string) (*Cmd, error) {
	return nil, Check()
}

// Mechanism says how this host bounds a sandboxed command: not at all.
func Mechanism() string { return "none (bubblewrap needs Linux)" }

type watch struct{}

func startWatch(int, []string, Limits) *watch { return nil }

func (w *watch) stop() *LimitError { return nil }

func freeBytes(string) int64 { return 0 }
