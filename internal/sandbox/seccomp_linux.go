//go:build linux

package sandbox

import (
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
)

// refused are the system calls no sandboxed command may make (EPERM): the
// ones Docker's default profile keeps from a container without extra
// capabilities (https://docs.docker.com/engine/security/seccomp/), for
// what they reach beyond the sandbox: other processes' memory (ptrace,
// process_vm_*, kcmp), the mount table (mount, umount2, pivot_root and the
// new mount API), the kernel keyring, eBPF, perf events, userfaultfd
// (a common kernel-exploit primitive), kernel modules, kexec, swap,
// reboot, process accounting, file handles (open_by_handle_at: the
// "shocker" container breakout), other namespaces (setns), the clock,
// the kernel log, I/O ports and io_uring (refused by Docker since 25.0).
var refused = []string{
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
	"mount", "umount", "umount2", "pivot_root", "chroot",
	"fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
	"keyctl", "add_key", "request_key",
	"bpf", "perf_event_open", "userfaultfd",
	"init_module", "finit_module", "delete_module", "create_module", "get_kernel_syms", "query_module",
	"kexec_load", "kexec_file_load",
	"swapon", "swapoff", "reboot", "acct", "setns",
	"open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "quotactl", "quotactl_fd", "nfsservctl",
	"uselib", "_sysctl", "sysfs", "ustat", "vhangup",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "stime", "syslog",
	"iopl", "ioperm", "vm86", "vm86old",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
}

// hot are the calls go build, go test, compilers and shells make most
// (strace -c of go build and go test), tested first.
var hot = []string{
	"read", "write", "futex", "epoll_pwait", "epoll_wait", "nanosleep", "mmap", "munmap", "madvise",
	"openat", "close", "newfstatat", "fstat", "statx", "lseek", "pread64", "pwrite64", "getdents64",
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "sched_yield", "getpid", "gettid",
	"tgkill", "fcntl", "ioctl", "readlinkat", "faccessat2", "mprotect", "brk", "wait4", "waitid",
	"clone", "execve", "exit_group", "exit", "pipe2", "dup3", "epoll_ctl", "getrandom", "prlimit64",
	"sched_getaffinity", "set_robust_list", "rseq", "clock_gettime", "clock_nanosleep", "renameat2",
	"unlinkat", "mkdirat", "fchmodat", "utimensat", "fsync", "fdatasync", "ftruncate", "access",
	"stat", "lstat", "open", "getcwd", "uname", "arch_prctl", "set_tid_address", "prctl",
}

// newNamespaces are clone's CLONE_NEW* flags: NEWNS,
// NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET (Docker refuses them
// without CAP_SYS_ADMIN; a new user namespace would hand its creator every
// capability inside it, the first step of most container escapes).
const newNamespaces = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000

// personalities are the personality(2) values Docker's profile allows:
// PER_LINUX, PER_LINUX32, UNAME26 with either, and the query.
var personalities = []uint64{0x0, 0x8, 0x20000, 0x20008, 0xffffffff}

var (
	filterOnce  sync.Once
	filterProgs [][]byte
	filterErr   error
)

// seccompPrograms are the compiled filters (struct sock_filter[], native
// byte order) that bwrap installs (--add-seccomp-fd, each) just before it
// starts the command; built once with elastic/go-seccomp-bpf. The kernel
// runs every filter and keeps the strictest answer.
//
// The first is an allow-list of every system call of this architecture
// that the library knows, less the refused ones: a foreign ABI (i386's
// int 0x80 on amd64, x32) and numbers newer than the library's table get
// ENOSYS (glibc falls back then), so the refusals cannot be stepped
// around through another table. clone3 gets ENOSYS too (its flags are in
// memory a filter cannot read; glibc then falls back to clone, whose
// flags it can). unshare is refused whole, as Docker does.
//
// The others each check one call's argument, clone's namespace flags and
// personality's value, and allow everything else: the library reloads no
// syscall number after an argument check, so a call checked by argument
// must be a filter's last test (go-seccomp-bpf v1.6.0's assembler).
func seccompPrograms() ([][]byte, error) {
	filterOnce.Do(func() { filterProgs, filterErr = buildSeccomp() })
	return filterProgs, filterErr
}

func buildSeccomp() ([][]byte, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("sandbox seccomp: %w", err)
	}
	deny := known(info, append(append([]string{}, refused...), "unshare"))
	// The filter tests one call after another: the busiest calls of
	// builds and tests come first, then the rest by number (low numbers
	// are the old, common ones), then the refusals.
	allow := known(info, hot)
	nums := make([]int, 0, len(info.SyscallNumbers))
	for n := range info.SyscallNumbers {
		nums = append(nums, n)
	}
	slices.Sort(nums)
	for _, n := range nums {
		name := info.SyscallNumbers[n]
		if !slices.Contains(deny, name) && name != "clone3" && !slices.Contains(allow, name) {
			allow = append(allow, name)
		}
	}
	eperm := seccomp.ActionErrno | seccomp.Action(syscall.EPERM)
	enosys := seccomp.ActionErrno | seccomp.Action(syscall.ENOSYS)
	// The default (foreign ABIs, numbers past the table) is RET_TRACE,
	// which the kernel answers with ENOSYS when no tracer is attached —
	// and none can be from inside, ptrace being refused (seccomp(2)); the
	// library takes no errno as its default action.
	main := seccomp.Policy{DefaultAction: seccomp.ActionTrace, Syscalls: []seccomp.SyscallGroup{
		{Names: allow, Action: seccomp.ActionAllow},
		{Names: deny, Action: eperm},
		{Names: known(info, []string{"clone3"}), Action: enosys},
	}}
	var persona seccomp.ArgumentConditions
	for _, v := range personalities {
		persona = append(persona, seccomp.Condition{Argument: 0, Operation: seccomp.NotEqual, Value: v})
	}
	clone := seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: []seccomp.SyscallGroup{{Action: eperm,
		NamesWithCondtions: []seccomp.NameWithConditions{{Name: "clone", // clone(flags, ...)
			Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: newNamespaces}}}}}}}
	pers := seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: []seccomp.SyscallGroup{{Action: eperm,
		NamesWithCondtions: []seccomp.NameWithConditions{{Name: "personality", Conditions: persona}}}}}
	var progs [][]byte
	for _, p := range []seccomp.Policy{main, clone, pers} {
		insts, err := p.Assemble()
		if err != nil {
			return nil, fmt.Errorf("sandbox seccomp: %w", err)
		}
		raw, err := bpf.Assemble(insts)
		if err != nil {
			return nil, fmt.Errorf("sandbox seccomp: %w", err)
		}
		out := make([]byte, 0, 8*len(raw))
		for _, in := range raw {
			out = binary.NativeEndian.AppendUint16(out, in.Op)
			out = append(out, in.Jt, in.Jf)
			out = binary.NativeEndian.AppendUint32(out, in.K)
		}
		progs = append(progs, out)
	}
	return progs, nil
}

// known keeps the names this architecture has (vm86 is i386's, stime
// is not amd64's, ...).
func known(info *arch.Info, names []string) []string {
	var out []string
	for _, n := range names {
		if _, ok := info.SyscallNames[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// seccompArgs are bwrap's arguments for the filters and the files to
// pass as ExtraFiles (the first becomes the child's fd 3): pipes holding
// one program each, small enough (a few KiB) to be written at once.
func seccompArgs() ([]string, []*os.File, error) {
	progs, err := seccompPrograms()
	if err != nil {
		return nil, nil, err
	}
	var args []string
	var files []*os.File
	for i, prog := range progs {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(files)
			return nil, nil, fmt.Errorf("sandbox seccomp: %w", err)
		}
		_, err = w.Write(prog)
		w.Close()
		if err != nil {
			r.Close()
			closeAll(files)
			return nil, nil, fmt.Errorf("sandbox seccomp: %w", err)
		}
		files = append(files, r)
		args = append(args, "--add-seccomp-fd", strconv.Itoa(3+i))
	}
	return args, files, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}
