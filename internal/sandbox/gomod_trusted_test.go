package sandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// TestCommittedModulesTrusted: a module version the repository itself
// committed (its go.mod and go.sum, as the bot reads them from git) is
// downloaded whatever its host, so a repository depending on a host off
// the public list (navidrome's code.cloudfoundry.org) still builds; a
// version a change adds on such a host is refused before any request (a
// path or a pseudo-version can carry data).
func TestCommittedModulesTrusted(t *testing.T) {
	t.Parallel()
	needGo(t)
	proxy := modProxy(t, "v1.0.0", "v1.0.1")
	dir := consumer(t, proxy, "v1.0.0")
	goMod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	must(t, err)
	goSum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	must(t, err)
	trusted := sandbox.CommittedModules(goMod, goSum)
	if !slices.Equal(trusted, []string{"example.com/dep@v1.0.0"}) {
		t.Fatalf("committed modules: %v", trusted)
	}
	caches, err := sandbox.NewCaches(t.TempDir(), sandbox.CacheOptions{DownloadEnv: []string{"GOPROXY=file://" + proxy, "GOSUMDB=off"}})
	must(t, err)

	_, err = caches.DownloadModulesAllowed(t.Context(), dir, sandbox.DefaultModuleHosts, nil)
	var mhe *sandbox.ModuleHostError
	if !errors.As(err, &mhe) {
		t.Fatalf("example.com is off the public list: want a ModuleHostError, got %v", err)
	}
	release, err := caches.DownloadModulesAllowed(t.Context(), dir, sandbox.DefaultModuleHosts, trusted)
	if err != nil {
		t.Fatalf("the committed version is refused: %v", err)
	}
	release()

	bumped := consumer(t, proxy, "v1.0.1")
	_, err = caches.DownloadModulesAllowed(t.Context(), bumped, sandbox.DefaultModuleHosts, trusted)
	if !errors.As(err, &mhe) || mhe.Module != "example.com/dep@v1.0.1" {
		t.Fatalf("a version the change added: want a ModuleHostError naming it, got %v", err)
	}
}
