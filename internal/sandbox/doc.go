// Package sandbox runs a command that executes repository or model-written
// code (go build and go vet with cgo, a repository's check commands, test
// runs, language servers) under bubblewrap (bwrap), with one policy for
// every caller (the coder, the language servers, bot replay): its own
// user, PID, IPC, UTS, cgroup and network namespaces; the working tree
// writable; the system's programs and libraries (/usr and a short list of
// /etc files) read-only; everything else — the bot's home, data folder,
// key and config files, other worktrees, the host's own caches and /proc —
// absent. The root, /etc and /dev are read-only (--remount-ro once all is
// mounted); /tmp and /dev/shm are sized tmpfs mounts (Limits.Tmp, Shm).
// The environment is the caller's reduced to procenv.Sandbox's allow-list
// (no token, key, password or database URL, whatever the caller passes),
// then the sandbox's own settings.
//
// Seccomp (seccomp_linux.go): filters built with elastic/go-seccomp-bpf,
// handed to bwrap (--add-seccomp-fd), close to Docker's default profile:
// ptrace, mount and the mount API, keyctl, bpf, perf_event_open,
// userfaultfd, modules, kexec, setns, unshare, clone with CLONE_NEW*
// flags, io_uring and the rest of refused's list get EPERM; clone3, the
// i386 and x32 tables and numbers the library does not know get ENOSYS.
// bwrap's --disable-userns (0.8+) also keeps new user namespaces out.
//
// Caches (caches.go, gomod.go, gomod_hosts.go, evict.go): the Go module
// cache is written only by the bot, outside the sandbox (`go mod
// download`, checked against go.sum and the checksum database), and
// mounted read-only with GOPROXY=off. Before it downloads, the bot parses
// go.mod (golang.org/x/mod/modfile; the sandbox may have written it) and
// refuses (*ModuleHostError) any required or replacing module, or a local
// replacement's requirement, that the repository did not commit itself
// (Policy.TrustedModules) and whose host is not on Policy.ModuleHosts
// (DefaultModuleHosts: the public code hosts), the Egress hosts or the
// operator's GOPRIVATE: a module path is a request the sandbox chose. The
// build cache, XDG_CACHE_HOME and the npm and pip caches are one
// repository's own (RepoKey), writable only by its commands;
// /tmp and HOME are fresh per command. Nothing writable is shared between
// repositories. Trim keeps both within their budgets, least recently used
// first, never removing what a running command holds; CheckSpace refuses
// a run below a free-space floor (*LowSpaceError). With StableDir the
// working tree is also at StableWorkDir and the command starts there: the
// go tool keys build cache entries by a package's directory, so every
// worktree of a repository then finds what earlier runs compiled.
//
// Limits (limits_linux.go, watch_linux.go, disk_linux.go): memory,
// processes and threads, open files, file size, bytes written, /tmp and
// /dev/shm size and wall time per command — cgroup v2 through systemd-run
// where the host delegates it (tmpfs and memfd pages are charged to the
// cgroup there), prlimit's rlimits and the bot's watchdog otherwise. The
// watchdog reads the sandbox's own /proc (through its PID 1's root), so it
// counts only its processes and stops counting at the limit: memory is
// the processes' proportional set size (smaps_rollup Pss: a fork bomb's
// shared pages count once, and it is named the processes limit) plus what
// /tmp and /dev/shm hold plus its open memfd files (the tmpfs sizes are
// counted against Memory, not carved out of it; a mapped shm file counts
// twice, erring safe); bytes written is the growth of its own writable
// paths (the working tree, Writable, its repository's caches: walked in
// the background) plus deleted files it holds open there — never the
// disk's free space, which other runs change. Wait's error names the
// limit that stopped a command (*LimitError). Mechanism says which.
// Not counted: System V shared memory segments no process maps. A bot
// run as root gets no RLIMIT_NPROC (the kernel exempts uid 0), so only
// the watchdog, which a CPU-starved host can slow, bounds its processes.
//
// Egress (egress.go, egress_rules.go, bridge.go): the network stays off;
// with an allowlist the bot runs an HTTP(S) proxy on a unix socket bound
// into the sandbox, reached through a bridge (this binary, run inside as
// the command's parent) on the sandbox's loopback. A bare name allows
// ports 443 and 80, "host:port" that port; CONNECT goes only to an
// allowed host and port, plain HTTP is GET and HEAD (and Methods). The
// proxy resolves a name once, refuses loopback, private (RFC 1918, ULA),
// link-local, multicast, unspecified, reserved and cloud-metadata
// addresses (169.254.169.254, fd00:ec2::254) unless an entry names that
// exact address, and dials the address it checked, so DNS rebinding
// cannot pass. Every request is logged with the run.
//
// Without bwrap on the host (or where it cannot create namespaces) Check
// reports why; callers refuse to run untrusted commands then.
//
// It imports only internal/procenv of the project.
package sandbox
