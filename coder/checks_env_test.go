package coder

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGoToolGetsNoBotSecrets runs the real go tool the way goChecks does
// (runner.run, same extra variables) on a program that prints its
// environment: the bot's ISSUESMITH_* settings never reach it, and neither
// the go tool nor the program it builds sees them.
func TestGoToolGetsNoBotSecrets(t *testing.T) {
	// Not parallel: t.Setenv.
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain on PATH")
	}
	t.Setenv("ISSUESMITH_TEST_SECRET", "hunter2-gotool")
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":  "module example.com/envprobe\n\ngo 1.21\n",
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tfor _, kv := range os.Environ() {\n\t\tfmt.Println(kv)\n\t}\n}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := runner{dir: dir, timeout: 2 * time.Minute}
	res := r.run(t.Context(), "go run", []string{gobin, "run", "."}, []string{"GOTOOLCHAIN=local", "GOPROXY=off"}, false)
	if !res.OK {
		t.Fatalf("go run failed: %s", res.Output)
	}
	if strings.Contains(res.Output, "hunter2-gotool") || strings.Contains(res.Output, "ISSUESMITH_") {
		t.Errorf("the bot's settings reached the go tool's child:\n%s", res.Output)
	}
	if !strings.Contains(res.Output, "GOTOOLCHAIN=local") {
		t.Errorf("the check's own variables are missing:\n%s", res.Output)
	}
}
