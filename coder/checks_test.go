package coder

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestTruncateOutput(t *testing.T) {
	t.Parallel()
	short := "ok\nfine\n"
	if got := truncateOutput(short); got != "ok\nfine" {
		t.Fatalf("short output changed: %q", got)
	}
	var b strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	got := truncateOutput(b.String())
	lines := strings.Split(got, "\n")
	if len(lines) > maxOutputLines+1 || len(got) > maxOutputBytes+200 {
		t.Fatalf("not truncated enough: %d lines, %d bytes", len(lines), len(got))
	}
	if lines[0] != "line 1" || lines[len(lines)-1] != "line 1000" {
		t.Fatalf("head or tail lost: first %q last %q", lines[0], lines[len(lines)-1])
	}
	if !strings.Contains(got, "lines omitted") {
		t.Fatal("the cut is not named")
	}
	// A few huge lines are cut by bytes, still marked.
	huge := strings.Repeat("x", 20000) + "\nEND"
	if got := truncateOutput(huge); len(got) > maxOutputBytes || !strings.Contains(got, "line cut") {
		t.Fatalf("huge line not clipped visibly: %d bytes", len(got))
	}
	// A compiler message in another script is cut between characters: the
	// output goes into prompts, comments and the PR body as text.
	wide := "x" + strings.Repeat("未定义", 4000) + "\nEND"
	if got := truncateOutput(wide); !utf8.ValidString(got) || !strings.Contains(got, "line cut") {
		t.Fatalf("multi-byte line clipped into invalid UTF-8: %q", got[len(got)-40:])
	}
}

func TestCommandChecks(t *testing.T) {
	// Not parallel: t.Setenv.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "marker"), []byte("here"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ISSUESMITH_TEST_SECRET", "s3cret") // must not reach the command
	// The timeout leaves a loaded machine seconds to start the sandbox and a
	// shell; the sleep outlasts it by far, so only the kill can end it early.
	r := runner{dir: dir, timeout: 3 * time.Second}
	res := r.commandChecks(t.Context(), []string{
		"cat marker",
		"echo failing >&2; exit 3",
		"env",
		"sleep 60",
		"  ",
	}, nil)
	if len(res) != 4 {
		t.Fatalf("got %d results, want 4 (blank command skipped)", len(res))
	}
	if !res[0].OK || res[0].Output != "here" {
		t.Errorf("cat in worktree: %+v", res[0])
	}
	if res[1].OK || !strings.Contains(res[1].Output, "failing") {
		t.Errorf("failing command: %+v", res[1])
	}
	if !res[2].OK || strings.Contains(res[2].Output, "s3cret") {
		t.Errorf("environment leaked a secret or failed: %+v", res[2])
	}
	if res[3].OK || !res[3].TimedOut || res[3].Duration > 30*time.Second {
		t.Errorf("timeout not enforced: %+v", res[3])
	}
}

func TestCommandChecksCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res := runner{dir: t.TempDir(), timeout: time.Second}.commandChecks(ctx, []string{"true"}, nil)
	if len(res) != 1 || res[0].OK {
		t.Fatalf("a cancelled check passed: %+v", res)
	}
}

func TestFixableOnlyFeedsBackWhatTheRunTouched(t *testing.T) {
	t.Parallel()
	checks := []CheckResult{
		{Name: "go build", Output: "other/old.go:3:1: undefined: x"}, // pre-existing break elsewhere
		{Name: "go vet", Output: "pkg/new.go:9:2: unreachable code"},
		{Name: "go test ./...", Output: "FAIL example.com/x"}, // configured commands always count
		{Name: "go build", OK: true},
	}
	got := fixable(checks, []string{"pkg/new.go"})
	if len(got) != 2 || got[0].Name != "go vet" || got[1].Name != "go test ./..." {
		t.Fatalf("fixable = %+v", got)
	}
}
