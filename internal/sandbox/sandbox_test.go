//go:build linux

package sandbox_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/issuesmith/issuesmith/internal/sandbox"
	"github.com/issuesmith/issuesmith/internal/sandbox/sandboxtest"
)

// need skips without bwrap only when the test run allows it; .ci/run
// installs bubblewrap, so there the sandbox tests always run.
func need(t *testing.T) {
	t.Helper()
	sandboxtest.Need(t)
}

// run runs a shell script in dir under p and returns its output and error.
func run(t *testing.T, p sandbox.Policy, dir, script string, timeout time.Duration) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd, err := p.Command(ctx, dir, []string{"sh", "-c", script}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

// TestKeyFileUnreadable: a key file beside the worktree, in a hidden path
// under a visible folder, and in the worktree's parent are all out of reach;
// the worktree itself is writable and /usr is not.
func TestKeyFileUnreadable(t *testing.T) {
	t.Parallel()
	need(t)
	base := t.TempDir()
	work := filepath.Join(base, "work")
	secrets := filepath.Join(base, "etc-like")
	for _, d := range []string{work, secrets} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	besideKey := filepath.Join(base, "app.pem")
	hiddenKey := filepath.Join(secrets, "app.pem")
	for _, k := range []string{besideKey, hiddenKey} {
		if err := os.WriteFile(k, []byte("-----BEGIN SECRET KEY-----"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(secrets, "visible.txt"), []byte("visible-ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := sandbox.Policy{ReadOnly: []string{secrets}, Hide: []string{hiddenKey}}
	script := fmt.Sprintf(`cat %s %s 2>&1; cat %s/visible.txt; echo written > out.txt && cat out.txt;
touch /usr/pwned 2>&1 || echo usr-readonly; touch %s/x 2>&1 || echo ro-extra; ls %s 2>&1 || echo base-absent`,
		besideKey, hiddenKey, secrets, secrets, base)
	out, err := run(t, p, work, script, time.Minute)
	if err != nil {
		t.Logf("exit: %v", err)
	}
	if strings.Contains(out, "SECRET KEY") {
		t.Fatalf("a key file was read inside the sandbox:\n%s", out)
	}
	for _, want := range []string{"visible-ok", "written", "usr-readonly", "ro-extra"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "app.pem") && !strings.Contains(out, "No such file") {
		t.Errorf("the worktree's parent is listed:\n%s", out)
	}
	if got, _ := os.ReadFile(filepath.Join(work, "out.txt")); string(got) != "written\n" {
		t.Errorf("worktree write not visible outside: %q", got)
	}
}

// TestNetworkOff: a loopback listener of the host is unreachable from the
// sandbox, whatever the policy (the same probe outside shows it can
// succeed).
func TestNetworkOff(t *testing.T) {
	t.Parallel()
	need(t)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash (for /dev/tcp) not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	probe := fmt.Sprintf(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d' 2>/dev/null && echo connected || echo refused`, port)
	if out, _ := exec.Command("/bin/sh", "-c", probe).Output(); strings.TrimSpace(string(out)) != "connected" {
		t.Fatalf("outside the sandbox the probe says %q", out)
	}
	out, _ := run(t, sandbox.Policy{}, t.TempDir(), probe, time.Minute)
	if strings.TrimSpace(out) != "refused" {
		t.Errorf("inside the sandbox the probe says %q, want refused", out)
	}
}

// TestTimeoutKillsEverything: a background child that outlives its shell
// is killed with the sandbox when the timeout ends.
func TestTimeoutKillsEverything(t *testing.T) {
	t.Parallel()
	need(t)
	dir := t.TempDir()
	start := time.Now()
	_, err := run(t, sandbox.Policy{}, dir, `(sleep 3; touch late) & sleep 60`, time.Second)
	if err == nil {
		t.Fatal("a timed-out command reported success")
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("the timeout took %s to end the command", d)
	}
	time.Sleep(4 * time.Second)
	if _, err := os.Stat(filepath.Join(dir, "late")); err == nil {
		t.Error("a child of the timed-out command kept running")
	}
}

// TestBotEnvironmentUnreachable starts this test binary as a stand-in bot
// whose own environment holds a secret; the bot runs a sandboxed command
// that tries /proc/<bot>/environ, every /proc/*/environ it can see and its
// own environment. The secret appears in none.
func TestBotEnvironmentUnreachable(t *testing.T) {
	t.Parallel()
	need(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBot$")
	cmd.Env = append(os.Environ(), "SANDBOX_HELPER_BOT=1", "ISSUESMITH_PRIVATE_KEY=hunter2-bot-secret",
		"SANDBOX_HELPER_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper bot: %v\n%s", err, out)
	}
	s := string(out)
	if !strings.Contains(s, "probe-done") {
		t.Fatalf("the probe did not run:\n%s", s)
	}
	if strings.Contains(s, "hunter2-bot-secret") {
		t.Fatalf("the bot's environment was read inside the sandbox:\n%s", s)
	}
	if !strings.Contains(s, "bot-pid-absent") {
		t.Errorf("the bot's /proc entry is visible:\n%s", s)
	}
}

// TestHelperBot is the stand-in bot of TestBotEnvironmentUnreachable.
func TestHelperBot(t *testing.T) {
	if os.Getenv("SANDBOX_HELPER_BOT") != "1" {
		t.Skip("helper process")
	}
	pid := os.Getpid()
	script := fmt.Sprintf(`test -e /proc/%d && echo bot-pid-visible || echo bot-pid-absent
cat /proc/%d/environ 2>&1; cat /proc/*/environ 2>/dev/null | tr '\0' '\n'; env; echo probe-done`, pid, pid)
	cmd, err := sandbox.Policy{}.Command(t.Context(), os.Getenv("SANDBOX_HELPER_DIR"),
		[]string{"sh", "-c", script}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
}
