package sandbox

import "time"

// Policy says what a sandboxed command may see besides its working tree.
// The zero Policy is the strictest: no network, no extra paths, no caches
// kept between commands, the default Limits.
type Policy struct {
	// ReadOnly are extra host paths visible read-only at the same place
	// (a toolchain outside /usr, e.g. GOROOT=/opt/go).
	ReadOnly []string
	// Writable are extra host paths visible read-write at the same place.
	// Never a cache another repository's commands also get: per-repository
	// caches come from Caches.
	Writable []string
	// Hide are host paths that must stay unreadable even when they lie
	// under a visible path (the App's key file, the bot's config file).
	Hide []string
	// Caches, when set, gives the command the bot's read-only module cache
	// (modules downloaded first, outside the sandbox, by the bot) and the
	// writable caches of repository Repo alone (go build, XDG, npm, pip);
	// nil takes DefaultCaches (the user's cache folder).
	Caches *Caches
	// Repo names the repository whose caches the command gets, by the
	// caller's own record of it (the App: host, installation and full
	// name; bot replay: the instance's repository), never by anything in
	// the tree; "" keys them by the working directory's path (RepoKey).
	Repo string
	// ModuleHosts are the hosts (a module path's first element; "*.d"
	// for d's subdomains) whose modules the bot may download, outside the
	// sandbox, for the go.mod of the working tree; nil is
	// DefaultModuleHosts. Egress's hosts and the operator's GOPRIVATE are
	// allowed besides. Any other module a go.mod names is refused before
	// the go command runs (*ModuleHostError): the path is data the
	// sandboxed command may have chosen.
	ModuleHosts []string
	// TrustedModules are module versions ("path@version") the bot
	// downloads whatever their host: those the repository's own committed
	// go.mod and go.sum name (CommittedModules over the base revision's
	// files, read from git by the caller, never from the tree a command
	// runs in).
	TrustedModules []string
	// Limits bound the command's resources; zero fields take DefaultLimits.
	Limits Limits
	// Egress, when it allows any host, gives the command an HTTP(S) proxy
	// run by the bot (the network stays off: see egress.go).
	Egress *Egress
	// StableDir mounts the working tree at StableWorkDir as well and
	// starts the command there. The go tool keys a package's build cache
	// entries by its directory (without -trimpath), and every run works in
	// a new worktree: at one path inside, every clone of a repository
	// finds the compiled packages an earlier run left in its build cache.
	// For commands that take no host path of the tree (builds, tests, a
	// repository's checks); the language servers, which are handed file
	// URIs, keep the host path.
	StableDir bool
}

// Limits bound one sandboxed command and everything it starts.
type Limits struct {
	// Memory is the memory of all its processes together — proportional
	// set size (a page shared by n processes counts 1/n to each), plus
	// what its /tmp and /dev/shm hold and its memfd files — and, as
	// RLIMIT_DATA, twice it of each one.
	Memory int64
	// Procs is how many processes and threads it may have at once.
	Procs int
	// OpenFiles is RLIMIT_NOFILE of each process.
	OpenFiles int
	// FileSize is the largest file it may write (RLIMIT_FSIZE).
	FileSize int64
	// Written is how much its own writable paths (the working tree,
	// Writable and its repository's caches) may grow while it runs;
	// /tmp and /dev/shm are memory (Tmp, Shm).
	Written int64
	// Tmp is the size of its /tmp (a tmpfs; what it holds counts in Memory).
	Tmp int64
	// Shm is the size of its /dev/shm (a tmpfs; what it holds counts in
	// Memory).
	Shm int64
	// Wall bounds its run time; 0 leaves it to the caller's context.
	Wall time.Duration
}

// Sizes of the default limits.
const (
	KiB = 1 << 10
	MiB = 1 << 20
	GiB = 1 << 30
)

// DefaultLimits fit `go test ./...` of a real project: 4 GiB of memory,
// 1024 processes and threads, 4096 open files, files up to 1 GiB, 8 GiB
// written, a 1 GiB /tmp, a 256 MiB /dev/shm; the wall time is the caller's.
var DefaultLimits = Limits{Memory: 4 * GiB, Procs: 1024, OpenFiles: 4096, FileSize: GiB, Written: 8 * GiB, Tmp: GiB,
	Shm: 256 * MiB}

// withDefaults fills zero fields from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.Memory <= 0 {
		l.Memory = d.Memory
	}
	if l.Procs <= 0 {
		l.Procs = d.Procs
	}
	if l.OpenFiles <= 0 {
		l.OpenFiles = d.OpenFiles
	}
	if l.FileSize <= 0 {
		l.FileSize = d.FileSize
	}
	if l.Written <= 0 {
		l.Written = d.Written
	}
	if l.Tmp <= 0 {
		l.Tmp = d.Tmp
	}
	if l.Shm <= 0 {
		l.Shm = d.Shm
	}
	return l
}
