//go:build linux

package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// TestIsolationMatrix: repository A's sandboxed command leaves a marker in
// every place a command can write (its tree, /tmp, /dev/shm, HOME, each
// cache; the sandbox's own root, the module cache and the host's caches,
// which it must be refused); repository B's command — another installation's, on
// the same bot — sees none of them, and none reaches the host's caches or
// B's caches on disk.
func TestIsolationMatrix(t *testing.T) {
	t.Parallel()
	need(t)
	needGo(t)
	proxy := modProxy(t, "v1.0.0")
	caches := testCaches(t, proxy, sandbox.CacheOptions{})
	hostCache, hostModCache := hostGoEnv(t)
	places := map[string]string{
		"worktree":  ".",
		"/tmp":      "/tmp",
		"HOME":      "$HOME",
		"GOCACHE":   "$GOCACHE",
		"XDG cache": "$XDG_CACHE_HOME",
		"npm cache": "$npm_config_cache",
		"pip cache": "$PIP_CACHE_DIR",
		"/dev/shm":  "/dev/shm",
	}
	refused := map[string]string{ // must not be writable at all
		"GOMODCACHE":    "$GOMODCACHE",
		"module source": "$GOMODCACHE/" + depPath + "@v1.0.0",
		"sandbox /":     "/issuesmith", // the root is read-only (issue 33)
		"/var/tmp":      "/var/tmp",
		"/run":          "/run",
	}
	// Host paths: a write there lands in the sandbox's own root, if
	// anywhere; the host copy must stay clean (checked below).
	hostPaths := map[string]string{"host GOCACHE": hostCache, "host GOMODCACHE": hostModCache, "caches on the host": caches.Root()}
	var write, look strings.Builder
	for name, p := range places {
		write.WriteString("mkdir -p " + p + " 2>/dev/null; echo A > " + p + "/marker-A 2>/dev/null && echo 'wrote " + name + "' || echo 'refused " + name + "'\n")
		look.WriteString("test -e " + p + "/marker-A && echo 'SEEN " + name + "'\n")
	}
	for name, p := range refused {
		write.WriteString("mkdir -p " + p + " 2>/dev/null; echo A > " + p + "/marker-A 2>/dev/null && echo 'WROTE " + name + "' || echo 'refused " + name + "'\n")
		look.WriteString("test -e " + p + "/marker-A && echo 'SEEN " + name + "'\n")
	}
	for name, p := range hostPaths {
		write.WriteString("mkdir -p " + p + " 2>/dev/null; echo A > " + p + "/marker-A 2>/dev/null; echo 'tried " + name + "'\n")
		look.WriteString("test -e " + p + "/marker-A && echo 'SEEN " + name + "'\n")
	}
	look.WriteString("true\n")
	a, b := consumer(t, proxy, "v1.0.0"), consumer(t, proxy, "v1.0.0")
	outA, err := run(t, sandbox.Policy{Caches: caches, ModuleHosts: testHosts, Repo: "github.com/inst-1/a"}, a, write.String(), time.Minute)
	if err != nil {
		t.Fatalf("A: %v\n%s", err, outA)
	}
	for name := range places {
		if !strings.Contains(outA, "wrote "+name) {
			t.Errorf("A could not write %s (the matrix would prove nothing there):\n%s", name, outA)
		}
	}
	for name := range refused {
		if !strings.Contains(outA, "refused "+name) {
			t.Errorf("A wrote %s:\n%s", name, outA)
		}
	}
	outB, err := run(t, sandbox.Policy{Caches: caches, ModuleHosts: testHosts, Repo: "github.com/inst-2/b"}, b, look.String(), time.Minute)
	if err != nil {
		t.Fatalf("B: %v\n%s", err, outB)
	}
	if strings.Contains(outB, "SEEN") {
		t.Errorf("B saw A's markers:\n%s", outB)
	}
	// On the host: A's markers are only in A's tree and A's own caches.
	for _, dir := range []string{hostCache, hostModCache, caches.Root(), caches.ModCache(), caches.RepoDir("github.com/inst-2/b"), b} {
		if found := findMarker(dir); found != "" {
			t.Errorf("A's marker reached %s", found)
		}
	}
	if findMarker(caches.RepoDir("github.com/inst-1/a")) == "" {
		t.Error("A's caches hold no marker: the writes went nowhere the test can see")
	}
}

// TestPoisoning: A overwrites the cached module's source and every entry of
// its build cache; B, building the same module version, builds and tests
// the clean copy.
func TestPoisoning(t *testing.T) {
	t.Parallel()
	need(t)
	needGo(t)
	proxy := modProxy(t, "v1.0.0")
	caches := testCaches(t, proxy, sandbox.CacheOptions{})
	a, b := consumer(t, proxy, "v1.0.0"), consumer(t, proxy, "v1.0.0")
	pA := sandbox.Policy{Caches: caches, ModuleHosts: testHosts, Repo: "github.com/inst-1/a"}
	if out, err := run(t, pA, a, "go run ./cmd", 5*time.Minute); err != nil || !strings.Contains(out, "dep says clean") {
		t.Fatalf("A's first build: %v\n%s", err, out)
	}
	src := "$GOMODCACHE/" + depPath + "@v1.0.0/dep.go"
	tamper := `chmod -R u+w $GOMODCACHE 2>&1; printf 'package dep\nfunc Hello() string { return "poisoned" }\n' > ` + src + ` 2>&1 || echo module-refused
find $GOCACHE -type f -name '*-d' | while read f; do printf 'garbage' > "$f"; done; echo tampered-build-cache`
	out, _ := run(t, pA, a, tamper, time.Minute)
	if !strings.Contains(out, "module-refused") || !strings.Contains(out, "tampered-build-cache") {
		t.Fatalf("tampering did not go as planned:\n%s", out)
	}
	if data, err := os.ReadFile(filepath.Join(caches.ModCache(), depPath+"@v1.0.0", "dep.go")); err != nil || !strings.Contains(string(data), "clean") {
		t.Fatalf("the module's source changed on the host: %q %v", data, err)
	}
	out, err := run(t, sandbox.Policy{Caches: caches, ModuleHosts: testHosts, Repo: "github.com/inst-2/b"}, b, "go run ./cmd", 5*time.Minute)
	if err != nil || !strings.Contains(out, "dep says clean") {
		t.Fatalf("B's build is not the clean one: %v\n%s", err, out)
	}
}

// hostGoEnv is the host go tool's GOCACHE and GOMODCACHE.
func hostGoEnv(t *testing.T) (string, string) {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	must(t, err)
	f := strings.Fields(string(out))
	if len(f) != 2 {
		t.Fatalf("go env: %q", out)
	}
	return f[0], f[1]
}

// findMarker is the first marker-A file under dir (two levels deep at
// most for the host's large caches), or "".
func findMarker(dir string) string {
	for _, pat := range []string{"marker-A", "*/marker-A", "*/*/marker-A"} {
		if m, _ := filepath.Glob(filepath.Join(dir, pat)); len(m) > 0 {
			return m[0]
		}
	}
	return ""
}
