package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// writeTree writes files (slash paths relative to the root → contents) into
// a new temp dir and returns it: the small real checkouts the command tests
// work on.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// execCmd runs cmd in-process with args and stdin under the test's context
// and returns what it wrote to stdout and stderr, and its error.
func execCmd(t *testing.T, cmd *cobra.Command, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.SetArgs(args)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	err := cmd.ExecuteContext(t.Context())
	return out.String(), errOut.String(), err
}

// outBuffer is a command's output, written while it runs and read by the
// test; wait wakes on each write.
type outBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // closed at the next write
}

func (o *outBuffer) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.wrote != nil {
		close(o.wrote)
		o.wrote = nil
	}
	return o.b.Write(p)
}

func (o *outBuffer) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// wait reports whether cond holds for the output within timeout, checking
// it again after each write (never on a timer).
func (o *outBuffer) wait(timeout time.Duration, cond func(out string) bool) bool {
	deadline := time.After(timeout)
	for {
		o.mu.Lock()
		if o.wrote == nil {
			o.wrote = make(chan struct{})
		}
		next, out := o.wrote, o.b.String()
		o.mu.Unlock()
		if cond(out) {
			return true
		}
		select {
		case <-next:
		case <-deadline:
			return cond(o.String())
		}
	}
}
