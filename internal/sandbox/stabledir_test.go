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

// TestStableDirKeepsTheBuildCacheWarmAcrossWorktrees: two worktrees of one
// repository at different host paths. With StableDir the second build
// compiles nothing (the go tool keys cache entries by a package's
// directory, which is the same inside); without it every package of the
// tree is compiled again.
func TestStableDirKeepsTheBuildCacheWarmAcrossWorktrees(t *testing.T) {
	t.Parallel()
	need(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	caches, err := sandbox.NewCaches(t.TempDir(), sandbox.CacheOptions{})
	must(t, err)
	tree := func() string {
		dir := t.TempDir()
		for name, body := range map[string]string{
			"go.mod":         "module example.com/warm\n\ngo 1.22\n",
			"warm.go":        "package warm\n\n// Two is 2.\nfunc Two() int { return 2 }\n",
			"inner/inner.go": "package inner\n\nimport \"example.com/warm\"\n\n// Four is 4.\nfunc Four() int { return warm.Two() * 2 }\n",
		} {
			must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
		}
		return dir
	}
	// -v names each package as it is compiled; a cached one is not named.
	build := func(p sandbox.Policy, dir string) string {
		out, err := run(t, p, dir, "go build -v ./... && pwd", time.Minute)
		if err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		return out
	}
	stable := sandbox.Policy{Caches: caches, ModuleHosts: testHosts, Repo: "warm", StableDir: true}
	first := build(stable, tree())
	if !strings.Contains(first, "example.com/warm/inner") || !strings.Contains(first, sandbox.StableWorkDir) {
		t.Fatalf("first build:\n%s", first)
	}
	if second := build(stable, tree()); strings.Contains(second, "example.com/warm") {
		t.Errorf("a second worktree compiled again with StableDir:\n%s", second)
	}
	if host := build(sandbox.Policy{Caches: caches, ModuleHosts: testHosts, Repo: "warm"}, tree()); !strings.Contains(host, "example.com/warm/inner") {
		t.Errorf("at its host path a new worktree hit the cache (the test shows nothing):\n%s", host)
	}
}
