//go:build linux

package sandbox_test

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// TestTrimModules: four module versions used in turn, the oldest still
// held by a running command; a budget of two and a half shrinks the cache
// under it by removing the two oldest that are not in use.
func TestTrimModules(t *testing.T) {
	t.Parallel()
	needGo(t)
	versions := []string{"v1.0.0", "v1.0.1", "v1.0.2", "v1.0.3"}
	proxy := modProxy(t, versions...)
	caches := testCaches(t, proxy, sandbox.CacheOptions{})
	var held func()
	for i, v := range versions {
		release, err := caches.DownloadModulesAllowed(t.Context(), consumer(t, proxy, v), testHosts, nil)
		must(t, err)
		if i == 0 {
			held = release // a run still building with v1.0.0
		} else {
			release()
		}
	}
	defer held()
	total := treeSize(caches.ModCache())
	caches.SetBudgets(total*5/8, 0) // two and a half of four
	rep, err := caches.Trim()
	must(t, err)
	for v, want := range map[string]bool{"v1.0.0": true, "v1.0.1": false, "v1.0.2": false, "v1.0.3": true} {
		_, err := os.Stat(filepath.Join(caches.ModCache(), depPath+"@"+v))
		if got := err == nil; got != want {
			t.Errorf("%s present=%v, want %v (report %+v)", v, got, want, rep)
		}
	}
	if rep.Modules != 2 || rep.KeptInUse != 1 || rep.ModuleBytes > total*5/8 {
		t.Errorf("report %+v, budget %d", rep, total*5/8)
	}
	// The evicted versions come back on the next run that needs them.
	release, err := caches.DownloadModulesAllowed(t.Context(), consumer(t, proxy, "v1.0.1"), testHosts, nil)
	must(t, err)
	release()
	if _, err := os.Stat(filepath.Join(caches.ModCache(), depPath+"@v1.0.1")); err != nil {
		t.Errorf("v1.0.1 not downloaded again: %v", err)
	}
}

// TestTrimRepos: four repositories' caches of 1 MiB each, the oldest in
// use by a running command; a 2.5 MiB budget removes the next two oldest.
func TestTrimRepos(t *testing.T) {
	t.Parallel()
	need(t)
	caches, err := sandbox.NewCaches(t.TempDir(), sandbox.CacheOptions{})
	must(t, err)
	fill := "head -c 1048576 /dev/zero > $GOCACHE/blob"
	running, err := sandbox.Policy{Caches: caches, ModuleHosts: testHosts, Repo: "r1"}.Command(t.Context(), t.TempDir(),
		[]string{"sh", "-c", fill + " && echo filled && sleep 60"}, os.Environ())
	must(t, err)
	said, w, err := os.Pipe()
	must(t, err)
	defer said.Close()
	running.Stdout = w
	must(t, running.Start())
	w.Close()
	defer func() { _ = running.Process.Kill(); _ = running.Wait() }()
	// The command says when its cache is filled (the read ends at its
	// line, or at its exit).
	if line, _ := bufio.NewReader(said).ReadString('\n'); line != "filled\n" {
		t.Fatalf("r1's command ended early (%q)", line)
	}
	for _, r := range []string{"r2", "r3", "r4"} {
		if out, err := run(t, sandbox.Policy{Caches: caches, ModuleHosts: testHosts, Repo: r}, t.TempDir(), fill, timeoutShort); err != nil {
			t.Fatalf("%s: %v\n%s", r, err, out)
		}
	}
	caches.SetBudgets(0, 5*sandbox.MiB/2)
	rep, err := caches.Trim()
	must(t, err)
	for r, want := range map[string]bool{"r1": true, "r2": false, "r3": false, "r4": true} {
		if got := exists(caches.RepoDir(r)); got != want {
			t.Errorf("%s present=%v, want %v (report %+v)", r, got, want, rep)
		}
	}
	if rep.Repos != 2 || rep.KeptInUse != 1 || rep.BuildBytes > 5*sandbox.MiB/2 {
		t.Errorf("report %+v", rep)
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// treeSize is the bytes of the regular files under dir.
func treeSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
