//go:build linux

package sandbox_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// depPath is the module the tests' proxies serve.
const depPath = "example.com/dep"

// testHosts allow the test module's host (example.com is not one of
// DefaultModuleHosts).
var testHosts = []string{"example.com"}

// modProxy writes a GOPROXY folder (file:// or behind http.FileServer)
// serving depPath at each version; the package's Hello returns "clean".
func modProxy(t *testing.T, versions ...string) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, depPath, "@v")
	must(t, os.MkdirAll(dir, 0o755))
	gomod := "module " + depPath + "\n\ngo 1.21\n"
	for _, v := range versions {
		must(t, os.WriteFile(filepath.Join(dir, v+".info"), []byte(`{"Version":"`+v+`","Time":"2024-01-01T00:00:00Z"}`), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, v+".mod"), []byte(gomod), 0o644))
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		for name, body := range map[string]string{
			"go.mod": gomod,
			"dep.go": "package dep\n\n// Hello says which copy of the module was built.\nfunc Hello() string { return \"clean\" }\n",
		} {
			w, err := zw.Create(depPath + "@" + v + "/" + name)
			must(t, err)
			_, err = w.Write([]byte(body))
			must(t, err)
		}
		must(t, zw.Close())
		must(t, os.WriteFile(filepath.Join(dir, v+".zip"), b.Bytes(), 0o644))
	}
	must(t, os.WriteFile(filepath.Join(dir, "list"), []byte(strings.Join(versions, "\n")+"\n"), 0o644))
	return root
}

// consumer writes a module requiring depPath@version whose test prints
// dep.Hello(), with the go.sum lines the go tool computes for it.
func consumer(t *testing.T, proxy, version string) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "mod", "download", "-json", depPath+"@"+version)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=file://"+proxy, "GOSUMDB=off", "GOFLAGS=-mod=mod",
		"GOMODCACHE="+t.TempDir(), "GOTOOLCHAIN=local", "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download: %v\n%s", err, out)
	}
	var m struct{ Sum, GoModSum, Dir string }
	must(t, json.Unmarshal(out, &m))
	t.Cleanup(func() { _ = exec.Command("chmod", "-R", "u+w", filepath.Dir(filepath.Dir(m.Dir))).Run() })
	files := map[string]string{
		"go.mod":      fmt.Sprintf("module example.com/app\n\ngo 1.21\n\nrequire %s %s\n", depPath, version),
		"go.sum":      fmt.Sprintf("%s %s %s\n%s %s/go.mod %s\n", depPath, version, m.Sum, depPath, version, m.GoModSum),
		"cmd/main.go": "package main\n\nimport \"" + depPath + "\"\n\nfunc main() { println(\"dep says\", dep.Hello()) }\n",
		"app_test.go": "package app\n\nimport (\n\t\"testing\"\n\n\t\"" + depPath + "\"\n)\n\n" +
			"func TestHello(t *testing.T) {\n\tt.Log(\"dep says\", dep.Hello())\n\tif dep.Hello() != \"clean\" {\n\t\tt.Fatal(\"poisoned build\")\n\t}\n}\n",
	}
	must(t, os.MkdirAll(filepath.Join(dir, "cmd"), 0o755))
	for name, body := range files {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	return dir
}

// testCaches are caches whose downloads use proxy and no checksum
// database (the test module is not in sum.golang.org; go.sum still
// checks every download).
func testCaches(t *testing.T, proxy string, opts sandbox.CacheOptions) *sandbox.Caches {
	t.Helper()
	opts.DownloadEnv = []string{"GOPROXY=file://" + proxy, "GOSUMDB=off"}
	c, err := sandbox.NewCaches(t.TempDir(), opts)
	must(t, err)
	t.Cleanup(func() { _ = exec.Command("chmod", "-R", "u+w", c.Root()).Run() })
	return c
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
}
