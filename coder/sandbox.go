package coder

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// goPolicy widens p for the go tool: GOROOT visible read-only, GOCACHE and
// GOMODCACHE writable (shared with later runs, so builds stay incremental),
// and returns the variables pointing the sandboxed go tool at them. The
// locations come from `go env`, run outside any worktree (so no go.mod or
// toolchain line is read); on failure p is returned unchanged and the go
// tool inside uses fresh caches under the sandbox's /tmp.
func goPolicy(ctx context.Context, gobin string, p sandbox.Policy) (sandbox.Policy, []string) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gobin, "env", "GOROOT", "GOCACHE", "GOMODCACHE")
	cmd.Dir = os.TempDir()
	cmd.Env = append(baseEnv(), "GOTOOLCHAIN=local", "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		return p, nil
	}
	vals := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(vals) != 3 {
		return p, nil
	}
	root, cache, modcache := vals[0], vals[1], vals[2]
	p.ReadOnly = append(append([]string{}, p.ReadOnly...), root)
	var env []string
	for _, kv := range [][2]string{{"GOCACHE", cache}, {"GOMODCACHE", modcache}} {
		if kv[1] == "" || kv[1] == "off" || !filepath.IsAbs(kv[1]) {
			continue
		}
		p.Writable = append(append([]string{}, p.Writable...), kv[1])
		env = append(env, kv[0]+"="+kv[1])
	}
	return p, env
}
