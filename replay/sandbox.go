package replay

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/internal/procenv"
	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// NewTestRunner returns the test runner for this host: under bubblewrap
// when it works (GOROOT read-only, the go build and module caches
// writable and shared between instances, the network on only for the
// module download step), otherwise with the scrubbed environment and a
// process-group kill; why is the second value.
func NewTestRunner(ctx context.Context, timeout time.Duration, hide []string) (*TestRunner, string) {
	r := &TestRunner{Timeout: timeout, Policy: sandbox.Policy{Hide: hide}}
	r.Env = goEnv(ctx)
	for _, kv := range r.Env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "GOROOT":
			r.Policy.ReadOnly = append(r.Policy.ReadOnly, v)
		case "GOCACHE", "GOMODCACHE":
			r.Policy.Writable = append(r.Policy.Writable, v)
		}
	}
	if err := sandbox.Check(); err != nil {
		return r, "tests run without a sandbox (scrubbed environment, process-group kill): " + err.Error()
	}
	r.Sandbox = true
	return r, "tests run under bubblewrap (no network; modules downloaded first with network)"
}

// goEnv are the go tool's GOROOT, GOCACHE and GOMODCACHE as absolute
// settings (the sandbox's HOME is a fresh /tmp, so defaults would be cold),
// or nothing when there is no go tool.
func goEnv(ctx context.Context) []string {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "env", "GOROOT", "GOCACHE", "GOMODCACHE")
	cmd.Dir = os.TempDir()
	cmd.Env = append(procenv.Scrubbed(), "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	vals := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(vals) != 3 {
		return nil
	}
	var env []string
	for i, k := range []string{"GOROOT", "GOCACHE", "GOMODCACHE"} {
		if filepath.IsAbs(vals[i]) {
			env = append(env, k+"="+vals[i])
		}
	}
	return env
}

// prefetch downloads a Go module's dependencies (network on, only the go
// tool runs) so the tests can run with the network off.
func (r *TestRunner) prefetch(ctx context.Context, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return nil
	}
	return r.RunSetup(ctx, dir, "go mod download")
}
