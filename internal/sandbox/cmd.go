package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
)

// Cmd is a sandboxed command: an exec.Cmd (set Stdout, Stderr, Stdin and
// run it as usual) whose Start also starts its watchdog and whose Wait
// ends its leases and its egress proxy. When a limit stopped it, Wait's
// error is a *LimitError.
type Cmd struct {
	*exec.Cmd

	limits  Limits
	paths   []string // its own writable paths on disk (Limits.Written)
	cleanup []func()
	w       *watch
	plain   bool // not sandboxed: no watchdog (Plain)

	once sync.Once
}

// Plain wraps a command that runs outside the sandbox (a host without
// bubblewrap) so callers handle both kinds alike; it gets no watchdog.
func Plain(cmd *exec.Cmd) *Cmd { return &Cmd{Cmd: cmd, plain: true} }

// LimitError says which limit stopped a command. It wraps the command's
// own error (an *exec.ExitError).
type LimitError struct {
	Limit  string // "memory", "processes", "file size", "written", "wall time"
	Detail string
	Err    error
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("stopped by the sandbox: %s limit: %s", e.Limit, e.Detail)
}

func (e *LimitError) Unwrap() error { return e.Err }

// Start starts the command and its watchdog.
func (c *Cmd) Start() error {
	if err := c.Cmd.Start(); err != nil {
		c.done()
		return err
	}
	if !c.plain {
		c.w = startWatch(c.Cmd.Process.Pid, c.paths, c.limits)
	}
	return nil
}

// Wait waits for the command, stops the watchdog and releases what the
// command held.
func (c *Cmd) Wait() error {
	err := c.Cmd.Wait()
	var le *LimitError
	if c.w != nil {
		le = c.w.stop()
	}
	c.done()
	if le == nil && err != nil && !c.plain {
		le = c.exitReason()
	}
	if le != nil {
		le.Err = err
		return le
	}
	return err
}

// exitReason names a limit from how the command ended: bwrap passes on a
// child killed by SIGXFSZ as 128+25.
func (c *Cmd) exitReason() *LimitError {
	st := c.Cmd.ProcessState
	if st == nil {
		return nil
	}
	if st.ExitCode() == 128+25 {
		return &LimitError{Limit: "file size", Detail: "a file grew past " + Size(c.limits.FileSize)}
	}
	return nil
}

// Run starts the command and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// Output runs the command and returns its standard output.
func (c *Cmd) Output() ([]byte, error) {
	if c.Stdout != nil {
		return nil, errors.New("sandbox: Stdout already set")
	}
	var b syncBuffer
	c.Stdout = &b
	err := c.Run()
	return b.Bytes(), err
}

// CombinedOutput runs the command and returns its standard output and
// standard error together.
func (c *Cmd) CombinedOutput() ([]byte, error) {
	if c.Stdout != nil || c.Stderr != nil {
		return nil, errors.New("sandbox: Stdout or Stderr already set")
	}
	var b syncBuffer
	c.Stdout, c.Stderr = &b, &b
	err := c.Run()
	return b.Bytes(), err
}

// done runs the cleanups once.
func (c *Cmd) done() {
	c.once.Do(func() {
		for i := len(c.cleanup) - 1; i >= 0; i-- {
			c.cleanup[i]()
		}
	})
}

// syncBuffer is a bytes buffer safe for two writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf
}

// Size renders a byte count as KiB, MiB or GiB.
func Size(n int64) string {
	switch {
	case n >= GiB && n%GiB == 0:
		return fmt.Sprintf("%d GiB", n/GiB)
	case n >= GiB:
		return fmt.Sprintf("%.1f GiB", float64(n)/GiB)
	case n >= MiB:
		return fmt.Sprintf("%d MiB", n/MiB)
	case n >= KiB:
		return fmt.Sprintf("%d KiB", n/KiB)
	}
	return fmt.Sprintf("%d B", n)
}
