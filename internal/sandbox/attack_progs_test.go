//go:build linux

package sandbox_test

// cprogs is the attack rows' C program: each argument names a system call
// it tries, printing "name: ok" or "name: <strerror>"; memfd grows a
// memfd file (written, never mapped) by 1 MiB at a time and then waits.
const cprogs = `
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void say(const char *name, long r) {
	if (r < 0) printf("%s: %s\n", name, strerror(errno));
	else printf("%s: ok\n", name);
	fflush(stdout);
}

static int child(void *arg) { return 0; }

static long int80_getpid(void) {
	long r;
	/* i386's getpid (20) through int 0x80 from a 64-bit process. */
	__asm__ volatile ("int $0x80" : "=a"(r) : "a"(20L) : "memory");
	return r;
}

int main(int argc, char **argv) {
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "ptrace")) {
			pid_t p = fork();
			if (p == 0) { pause(); _exit(0); }
			say(a, ptrace(PTRACE_ATTACH, p, 0, 0));
			kill(p, SIGKILL);
		} else if (!strcmp(a, "mount")) {
			say(a, mount("none", "/tmp", "tmpfs", 0, 0));
		} else if (!strcmp(a, "clone-newuser")) {
			static char stack[65536];
			long r = clone(child, stack + sizeof stack, CLONE_NEWUSER | SIGCHLD, 0);
			if (r > 0) waitpid(r, 0, 0);
			say(a, r);
		} else if (!strcmp(a, "keyctl")) {
			say(a, syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0));
		} else if (!strcmp(a, "bpf")) {
			char attr[128] = {0};
			say(a, syscall(SYS_bpf, 0 /* BPF_MAP_CREATE */, attr, sizeof attr));
		} else if (!strcmp(a, "userfaultfd")) {
			say(a, syscall(SYS_userfaultfd, 0));
		} else if (!strcmp(a, "perf_event_open")) {
			char attr[128] = {0};
			say(a, syscall(SYS_perf_event_open, attr, 0, -1, -1, 0));
		} else if (!strcmp(a, "int80")) {
			long r = int80_getpid();
			if (r < 0) { errno = -r; r = -1; }
			say(a, r);
		} else if (!strcmp(a, "memfd")) {
			int fd = memfd_create("hog", 0);
			if (fd < 0) { say(a, -1); continue; }
			static char buf[1 << 20];
			memset(buf, 1, sizeof buf);
			for (int n = 0; n < 1024; n++) {
				if (write(fd, buf, sizeof buf) < 0) { say(a, -1); break; }
				usleep(2000);
			}
			say(a, 0);
			sleep(30);
		}
	}
	return 0;
}
`
