//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
		args := append(baseArgs(Policy{}, Limits{Tmp: MiB, Shm: MiB}), "--remount-ro", "/", "--", "true")
		if out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput(); err != nil {
			checkErr = fmt.Errorf("%w: bwrap cannot create namespaces here (%v: %s); run the bot where unprivileged user namespaces are allowed, or as root",
				ErrUnavailable, err, strings.TrimSpace(string(out)))
		}
	})
	return checkErr
}

// Command returns a command running argv in dir under the policy, with env
// (reduced to procenv.Sandbox's allow-list, then the policy's own
// settings) and
// killed — with everything it started — when ctx ends or a limit is passed.
// dir becomes the working directory and is writable; /tmp is a fresh tmpfs
// and HOME points into it. With Caches, the Go modules dir's go.mod needs
// are downloaded first (outside the sandbox; a *ModuleHostError when
// go.mod names a module on a host outside the policy's module allowlist,
// a *DownloadError when the download fails), and nothing starts below the
// caches' free-space floor (a *LowSpaceError). The caller sets
// Stdout/Stderr and runs it; Check must have succeeded.
func (p Policy) Command(ctx context.Context, dir string, argv []string, env []string) (*Cmd, error) {
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
	c := &Cmd{limits: p.Limits.withDefaults(), paths: []string{abs}}
	args, extraEnv, err := p.mounts(ctx, c, abs)
	if err != nil {
		c.done()
		return nil, err
	}
	inner := argv
	if p.Egress.allows() {
		stop, bargs, benv, err := p.Egress.start(p.Repo)
		if err != nil {
			c.done()
			return nil, err
		}
		c.cleanup = append(c.cleanup, stop)
		args = append(args, bargs...)
		extraEnv = append(extraEnv, benv...)
		inner = append([]string{bridgeExe}, argv...)
	}
	cwd := abs
	if p.StableDir {
		cwd = StableWorkDir
		args = append(args, "--setenv", "PWD", StableWorkDir) // bound in mounts, .git masked there too
	}
	sargs, filters, err := seccompArgs()
	if err != nil {
		c.done()
		return nil, err
	}
	c.cleanup = append(c.cleanup, func() { closeAll(filters) })
	// The root (bwrap's own tmpfs, holding only the mount points), /etc
	// and /dev read-only once everything is mounted; the working tree,
	// the binds, /tmp and /dev/shm are mounts of their own and stay as
	// they are (--remount-ro is not recursive). The seccomp filters come
	// in on fds 3, 4, ... (ExtraFiles) and are installed just before the
	// command starts.
	args = append(args, "--remount-ro", "/dev", "--remount-ro", "/")
	args = append(append(args, sargs...), "--chdir", cwd, "--")
	full := append(scopeArgs(c.limits), "bwrap")
	full = append(append(full, args...), limitArgs(c.limits, inner)...)
	cmd := exec.CommandContext(ctx, full[0], full[1:]...)
	cmd.Dir = abs
	cmd.Env = append(append(procenv.Sandbox(env), "HOME=/tmp", "TMPDIR=/tmp"), extraEnv...)
	cmd.ExtraFiles = filters
	killGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	c.Cmd = cmd
	return c, nil
}

// mounts are bwrap's arguments for the namespaces, the system, the caches,
// the extra paths and the working tree, and the environment they need.
func (p Policy) mounts(ctx context.Context, c *Cmd, abs string) ([]string, []string, error) {
	args := baseArgs(p, c.limits)
	env := goEnv(abs)
	if root := goRoot(); root != "" {
		args = append(args, "--ro-bind", root, root)
	}
	if p.Caches == nil {
		p.Caches = DefaultCaches()
	}
	if p.Caches != nil {
		if err := p.Caches.CheckSpace(); err != nil {
			return nil, nil, err
		}
		release, err := p.Caches.DownloadModulesAllowed(ctx, abs, p.moduleHosts(), p.TrustedModules)
		if err != nil {
			return nil, nil, err
		}
		c.cleanup = append(c.cleanup, release)
		key := p.Repo
		if key == "" {
			key = RepoKey(abs)
		}
		dir, releaseRepo, err := p.Caches.leaseRepo(key)
		if err != nil {
			return nil, nil, err
		}
		c.cleanup = append(c.cleanup, releaseRepo)
		c.paths = append(c.paths, filepath.Join(dir, "go-build"), filepath.Join(dir, "cache"))
		args = append(args, "--ro-bind", p.Caches.ModCache(), ModCacheDir,
			"--bind", filepath.Join(dir, "go-build"), BuildCacheDir,
			"--bind", filepath.Join(dir, "cache"), UserCacheDir)
		env = append(env, "GOMODCACHE="+ModCacheDir, "GOCACHE="+BuildCacheDir, "XDG_CACHE_HOME="+UserCacheDir,
			"npm_config_cache="+UserCacheDir+"/npm", "PIP_CACHE_DIR="+UserCacheDir+"/pip")
	} else {
		env = append(env, "GOMODCACHE=/tmp/gomod", "GOCACHE=/tmp/go-build", "XDG_CACHE_HOME=/tmp/.cache")
	}
	for _, w := range p.Writable {
		if err := os.MkdirAll(w, 0o755); err != nil {
			return nil, nil, fmt.Errorf("sandbox: writable %s: %w", w, err)
		}
		args = append(args, "--bind", w, w)
		c.paths = append(c.paths, w)
	}
	args = append(args, "--bind", abs, abs)
	at := []string{abs}
	if p.StableDir {
		at = append(at, StableWorkDir)
		args = append(args, "--bind", abs, StableWorkDir)
	}
	git, err := gitMetaArgs(abs, at...)
	if err != nil {
		return nil, nil, err
	}
	args = append(args, git...)
	args = append(args, hideArgs(p.Hide)...)
	return args, env, nil
}

// goEnv is the go tool's settings in every sandbox: the local toolchain,
// no module proxy, go.mod and go.sum read-only (unless the module is
// vendored, where the go tool's default -mod=vendor stays).
func goEnv(dir string) []string {
	env := []string{"GOTOOLCHAIN=local", "GOPROXY=off", "GOWORK=off", "GOENV=off"}
	// -buildvcs=false: the worktree's git directory (a mirror) is not
	// mounted, so stamping a main package's VCS state would fail.
	if _, err := os.Stat(filepath.Join(dir, "vendor", "modules.txt")); err != nil {
		env = append(env, "GOFLAGS=-mod=readonly -buildvcs=false")
	} else {
		env = append(env, "GOFLAGS=-buildvcs=false")
	}
	return env
}

var (
	goRootOnce sync.Once
	goRootDir  string
)

// goRoot is the host go tool's GOROOT when it lies outside the system's
// read-only folders (e.g. /usr/local/go), asked once, outside any module.
func goRoot() string {
	goRootOnce.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, gobin, "env", "GOROOT")
		cmd.Dir = os.TempDir()
		cmd.Env = append(procenv.Scrubbed(), "GOTOOLCHAIN=local", "GOFLAGS=", "GOWORK=off")
		out, err := cmd.Output()
		if root := strings.TrimSpace(string(out)); err == nil && filepath.IsAbs(root) && !strings.HasPrefix(root, "/usr/") {
			goRootDir = root
		}
	})
	return goRootDir
}

// baseArgs are the namespaces, the sized tmpfs mounts (/tmp, and /dev/shm
// over the unsized one of bwrap's --dev) and the read-only system view.
// Where bwrap can (0.8 and later), --disable-userns keeps the command from
// making user namespaces of its own (the seccomp filter refuses them too).
func baseArgs(p Policy, l Limits) []string {
	args := []string{"--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"}
	if disableUserns() {
		args = append(args, "--unshare-user", "--disable-userns")
	}
	args = append(args, "--proc", "/proc", "--dev", "/dev",
		"--size", strconv.FormatInt(l.Shm, 10), "--tmpfs", "/dev/shm",
		"--size", strconv.FormatInt(l.Tmp, 10), "--tmpfs", "/tmp")
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

var (
	usernsOnce sync.Once
	usernsOpt  bool
)

// disableUserns reports whether the installed bwrap knows --disable-userns.
func disableUserns() bool {
	usernsOnce.Do(func() {
		out, _ := exec.Command("bwrap", "--help").CombinedOutput()
		usernsOpt = strings.Contains(string(out), "--disable-userns")
	})
	return usernsOpt
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
