// Package sandbox runs a command that executes repository or model-written
// code (go build and go vet with cgo, a repository's check commands, test
// runs, language servers) under bubblewrap (bwrap): its own user, PID, IPC,
// UTS, cgroup and network namespaces; the working tree and the toolchain's
// caches writable; the system's programs and libraries (/usr and a short list
// of /etc files) read-only; everything else — the bot's home, data folder,
// key and config files, other worktrees, the host's /proc — absent. The
// environment is procenv's scrubbed one, the network is off unless the
// policy allows it, and a timeout kills the whole sandbox (bwrap's PID
// namespace dies with it).
//
// Without bwrap on the host (or where it cannot create namespaces) Check
// reports why; callers refuse to run untrusted commands then.
//
// It imports only internal/procenv of the project.
package sandbox
