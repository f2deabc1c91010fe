//go:build linux

package sandbox_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// runErr runs script under p and returns the output and Wait's error.
func runErr(t *testing.T, p sandbox.Policy, dir, script string) (string, error) {
	t.Helper()
	cmd, err := p.Command(t.Context(), dir, []string{"sh", "-c", script}, os.Environ())
	must(t, err)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

// TestLimits: a fork bomb, a memory hog, a 20 GB file writer, a writer of
// many smaller files and a sleeper past its wall time each end with the
// limit they hit named; the same policy's next command works.
func TestLimits(t *testing.T) {
	t.Parallel()
	need(t)
	caches, err := sandbox.NewCaches(t.TempDir(), sandbox.CacheOptions{})
	must(t, err)
	base := sandbox.Policy{Caches: caches, ModuleHosts: testHosts, Repo: "limits", Limits: sandbox.Limits{
		Procs: 64, Memory: 256 * sandbox.MiB, FileSize: 16 * sandbox.MiB, Written: 96 * sandbox.MiB, Wall: 20 * time.Second}}
	cases := []struct {
		name, script, limit string
		needs               string
	}{
		{"fork bomb", forkBomb, "processes", ""}, // bounded: see TestAttacks
		{"memory hog", `python3 -c 'import time
b = []
while True:
    b.append(bytearray(8 << 20)); time.sleep(0.02)'`, "memory", "python3"},
		{"20 GB file", `head -c 20G /dev/zero > big`, "file size", ""},
		{"disk filler", `i=0; while true; do i=$((i+1)); head -c 8M /dev/zero > f$i || exit 1; done`, "written", ""},
		{"sleeper", `sleep 60`, "wall time", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needs != "" {
				if _, err := exec.LookPath(tc.needs); err != nil {
					t.Skip(tc.needs + " not installed")
				}
			}
			dir := t.TempDir()
			start := time.Now()
			out, err := runErr(t, base, dir, tc.script)
			var le *sandbox.LimitError
			if !errors.As(err, &le) {
				t.Fatalf("want a LimitError, got %v after %s\n%s", err, time.Since(start), clipOut(out))
			}
			if le.Limit != tc.limit {
				t.Fatalf("stopped by %q (%s), want %q", le.Limit, le.Detail, tc.limit)
			}
			t.Logf("%s: %v after %s", tc.name, le, time.Since(start).Round(time.Millisecond))
			if out, err := runErr(t, base, dir, "echo next-run-works"); err != nil || !strings.Contains(out, "next-run-works") {
				t.Fatalf("the next command failed: %v\n%s", err, out)
			}
		})
	}
}

func clipOut(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

const timeoutShort = time.Minute
