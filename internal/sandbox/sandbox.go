//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/issuesmith/issuesmith/internal/procenv"
)

// Install tells an operator how to get bubblewrap.
const Install = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Alpine: apk add bubblewrap)"

// ErrUnavailable is wrapped by Check's error when bwrap is missing or cannot
// create its namespaces on this host.
var ErrUnavailable = errors.New("bubblewrap sandbox unavailable")

// Policy says what a sandboxed command may see besides its working tree.
// The zero Policy is the strictest: no network, no extra paths.
type Policy struct {
	// ReadOnly are extra host paths visible read-only at the same place
	// (a toolchain outside /usr, e.g. GOROOT=/opt/go).
	ReadOnly []string
	// Writable are extra host paths visible read-write at the same place
	// (GOCACHE, GOMODCACHE, npm or pip caches); folders are created first.
	Writable []string
	// Hide are host paths that must stay unreadable even when they lie
	// under a visible path (the App's key file, the bot's config file).
	Hide []string
	// Network shares the host's network (for a module proxy); off, the
	// command has only its own loopback.
	Network bool
}

// systemRO are the host paths every sandbox sees read-only (when present):
// programs, libraries and the few /etc files that name resolution, TLS,
// users and Debian's alternatives (cc → gcc) need.
var systemRO = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc/alternatives", "/etc/ssl", "/etc/ca-certificates", "/etc/pki",
	"/etc/passwd", "/etc/group", "/etc/hosts", "/etc/resolv.conf",
	"/etc/nsswitch.conf", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
	"/etc/localtime", "/etc/os-release", "/etc/gitconfig",
}

var (
	checkOnce sync.Once
	checkErr  error
)

// Check reports whether sandboxed commands can run on this host: bwrap is on
// PATH and starts a command in fresh namespaces. The answer is computed once.
func Check() error {
	checkOnce.Do(func() {
		bin, err := exec.LookPath("bwrap")
		if err != nil {
			checkErr = fmt.Errorf("%w: bwrap not found on PATH; %s", ErrUnavailable, Install)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		args := append(baseArgs(Policy{}), "--", "true")
		if out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput(); err != nil {
			checkErr = fmt.Errorf("%w: bwrap cannot create namespaces here (%v: %s); run the bot where unprivileged user namespaces are allowed, or as root",
				ErrUnavailable, err, strings.TrimSpace(string(out)))
		}
	})
	return checkErr
}

// Command returns a command running argv in dir under the policy, with env
// (filtered again through procenv) and killed — with everything it started —
// when ctx ends. dir becomes the working directory and is writable; /tmp is a
// fresh tmpfs and HOME points into it. The caller sets Stdout/Stderr and runs
// it; Check must have succeeded.
func (p Policy) Command(ctx context.Context, dir string, argv []string, env []string) (*exec.Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if err := Check(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	args := baseArgs(p)
	for _, w := range p.Writable {
		if err := os.MkdirAll(w, 0o755); err != nil {
			return nil, fmt.Errorf("sandbox: writable %s: %w", w, err)
		}
		args = append(args, "--bind", w, w)
	}
	args = append(args, "--bind", abs, abs)
	args = append(args, hideArgs(p.Hide)...)
	args = append(args, "--chdir", abs, "--")
	cmd := exec.CommandContext(ctx, "bwrap", append(args, argv...)...)
	cmd.Dir = abs
	cmd.Env = append(procenv.Filter(env), "HOME=/tmp", "TMPDIR=/tmp")
	killGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	return cmd, nil
}

// baseArgs are the namespaces and the read-only system view.
func baseArgs(p Policy) []string {
	args := []string{"--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
		"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"}
	if p.Network {
		args = append(args, "--share-net")
	}
	for _, path := range append(append([]string{}, systemRO...), p.ReadOnly...) {
		fi, err := os.Lstat(path)
		switch {
		case err != nil:
			continue
		case fi.Mode()&os.ModeSymlink != 0 && filepath.Dir(path) == "/":
			// merged /usr: /bin -> usr/bin stays a symlink.
			if target, err := os.Readlink(path); err == nil {
				args = append(args, "--symlink", target, path)
			}
		default:
			args = append(args, "--ro-bind", path, path)
		}
	}
	return args
}

// hideArgs masks each existing hidden path: a file with an empty read-only
// file, a folder with an empty tmpfs.
func hideArgs(paths []string) []string {
	var args []string
	for _, h := range paths {
		if h == "" {
			continue
		}
		abs, err := filepath.Abs(h)
		if err != nil {
			continue
		}
		fi, err := os.Stat(abs)
		switch {
		case err != nil:
			continue
		case fi.IsDir():
			args = append(args, "--tmpfs", abs, "--remount-ro", abs)
		default:
			args = append(args, "--ro-bind", os.DevNull, abs)
		}
	}
	return args
}

// killGroup puts bwrap in its own process group and makes the context's end
// kill the group; bwrap's --die-with-parent and PID namespace take every
// process inside down with it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
