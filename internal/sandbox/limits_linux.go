//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

var (
	mechOnce   sync.Once
	mechCgroup bool   // systemd-run --user --scope works here
	prlimit    string // prlimit's path (inside the sandbox too: under /usr), or ""
)

// probeMechanism finds how this host can bound a sandbox: a transient
// systemd scope (cgroup v2, delegated to the bot's user) and prlimit.
func probeMechanism() {
	mechOnce.Do(func() {
		if p, err := exec.LookPath("prlimit"); err == nil && (strings.HasPrefix(p, "/usr/") || strings.HasPrefix(p, "/bin/")) {
			prlimit = p
		}
		if p, err := exec.LookPath("systemd-run"); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := exec.CommandContext(ctx, p, "--user", "--scope", "--quiet", "--collect",
				"-p", "MemoryMax=64M", "-p", "TasksMax=16", "true").Run()
			mechCgroup = err == nil
		}
	})
}

// Mechanism says how this host bounds a sandboxed command, for /readyz.
func Mechanism() string {
	probeMechanism()
	var parts []string
	if mechCgroup {
		parts = append(parts, "cgroup v2 through systemd (systemd-run --user --scope: MemoryMax, TasksMax)")
	}
	if prlimit != "" {
		parts = append(parts, "rlimits (prlimit: data, nofile, fsize, nproc)")
	} else {
		parts = append(parts, "no rlimits (prlimit, from util-linux, not found)")
	}
	parts = append(parts, "the bot's watchdog (proportional memory with /tmp, /dev/shm and memfd, processes, bytes written to its own paths, wall time)")
	return strings.Join(parts, " + ")
}

// limitArgs wraps argv (run inside bwrap) in prlimit's per-process limits.
// RLIMIT_DATA is twice the memory limit: a backstop, so a hog meets the
// watchdog (which names the limit) first.
// RLIMIT_NPROC counts per user namespace, so inside bwrap's it is this
// sandbox's own count (root is exempt: the watchdog covers it).
func limitArgs(l Limits, argv []string) []string {
	probeMechanism()
	if prlimit == "" {
		return argv
	}
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	return append([]string{prlimit,
		"--data=" + n(2*l.Memory), "--nofile=" + n(int64(l.OpenFiles)), "--fsize=" + n(l.FileSize),
		"--nproc=" + n(int64(l.Procs)), "--core=0", "--"}, argv...)
}

// scopeArgs is the systemd-run prefix putting bwrap in its own cgroup
// with the limits, or nothing where the host does not delegate cgroups.
func scopeArgs(l Limits) []string {
	probeMechanism()
	if !mechCgroup {
		return nil
	}
	return []string{"systemd-run", "--user", "--scope", "--quiet", "--collect",
		"-p", fmt.Sprintf("MemoryMax=%d", l.Memory), "-p", "MemorySwapMax=0",
		"-p", fmt.Sprintf("TasksMax=%d", l.Procs), "--"}
}
