package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/issuesmith/issuesmith/internal/procenv"
	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// TestRunner runs an instance's test command in its clone.
type TestRunner struct {
	// Timeout bounds one test run (the whole process group is killed).
	Timeout time.Duration
	// Sandbox runs the command under bubblewrap when it works on this host;
	// Policy is its policy (internal/sandbox's: no network; setup commands
	// reach SetupHosts through the egress proxy). Off, the command runs with the scrubbed environment
	// only.
	Sandbox bool
	Policy  sandbox.Policy
	// Env is added to the scrubbed environment (GOFLAGS, GOCACHE, ...).
	Env []string
	// SetupHosts are the hosts an instance's setup command may reach,
	// through the sandbox's egress proxy (--setup-hosts); tests get none.
	SetupHosts []string
	// Setups are the repositories' setups (--setup; setup.go): packages
	// the host must have, commands run before the tests.
	Setups Setups
}

// DefaultSetupHosts are the package registries a setup command installs
// from by default: PyPI, npm, the Go module proxy and checksum database,
// GitHub's archives.
var DefaultSetupHosts = []string{"pypi.org", "files.pythonhosted.org", "registry.npmjs.org",
	"proxy.golang.org", "sum.golang.org", "github.com", "codeload.github.com", "objects.githubusercontent.com"}

// TestRun is what one run of the test command showed.
type TestRun struct {
	Cmd       string
	Output    []byte // combined output (kept for the reason line)
	Err       error  // the command's exit error, or the time limit
	TimedOut  bool
	PeakRSSKB int64
	Wall      time.Duration
	Results   map[string]string // test name → pass, fail, skip
}

// Command is the instance's test command with its placeholders filled in:
// {tests} is the `|`-joined top-level names of every test to judge
// (regexp-quoted, for `go test -run`), {test_ids} every name whole, each
// shell-quoted, space-separated (pytest node ids, say); `-json` is added to
// a `go test` that has neither -json nor -v.
func Command(in *Instance) string {
	seenTop, seenID := map[string]bool{}, map[string]bool{}
	var tops, ids []string
	for _, n := range append(append([]string{}, in.FailToPass...), in.PassToPass...) {
		top, _, _ := strings.Cut(n, "/")
		if top != "" && !seenTop[top] {
			seenTop[top] = true
			tops = append(tops, regexp.QuoteMeta(top))
		}
		if n != "" && !seenID[n] {
			seenID[n] = true
			ids = append(ids, "'"+strings.ReplaceAll(n, "'", `'\''`)+"'")
		}
	}
	cmd := strings.ReplaceAll(in.TestCmd, "{tests}", strings.Join(tops, "|"))
	cmd = strings.ReplaceAll(cmd, "{test_ids}", strings.Join(ids, " "))
	return goTestJSON.ReplaceAllString(cmd, "${1}go test -json ")
}

// goTestJSON finds `go test ` at the start of a command word, so -json can
// be put right after it; a -v there stays (test2json reports the same).
var goTestJSON = regexp.MustCompile(`(^|[;&|(]\s*|\s)go test `)

// Run runs the instance's test command in dir.
func (r *TestRunner) Run(ctx context.Context, dir string, in *Instance) *TestRun {
	return r.RunWith(ctx, dir, in, nil)
}

// RunWith is Run with env added (RunRepoSetup's PATH through the venv).
func (r *TestRunner) RunWith(ctx context.Context, dir string, in *Instance, env []string) *TestRun {
	line := Command(in)
	line = strings.Replace(line, "go test -json -json", "go test -json", 1)
	tr := &TestRun{Cmd: line}
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	cmd, err := r.command(ctx, dir, in, line, false, env)
	if err != nil {
		tr.Err = err
		return tr
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	tr.Err = cmd.Run()
	tr.Wall = time.Since(start)
	tr.Output = out.Bytes()
	tr.PeakRSSKB = peakRSS(cmd.ProcessState)
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		tr.TimedOut = true
		tr.Err = fmt.Errorf("test command timed out after %s", r.Timeout)
	}
	var le *sandbox.LimitError
	if errors.As(tr.Err, &le) {
		tr.Output = append(tr.Output, "\n"+le.Error()...)
	}
	tr.Results = ParseResults(tr.Output)
	r.trim()
	return tr
}

// trim keeps the caches within their budgets after a run (--cache-budget).
func (r *TestRunner) trim() {
	if r.Policy.Caches == nil {
		return
	}
	_, _ = r.Policy.Caches.Trim()
}

// command is line under sh in dir: in the sandbox (with no network; a
// setup command reaches SetupHosts through the egress proxy; the caches of
// the instance's repository, RepoKey) or with a process-group kill.
func (r *TestRunner) command(ctx context.Context, dir string, in *Instance, line string, setup bool, extra []string) (*sandbox.Cmd, error) {
	env := append(append(procenv.Scrubbed(), r.Env...), extra...)
	argv := []string{"/bin/sh", "-c", line}
	if r.Sandbox {
		p := r.Policy
		p.Repo = RepoKey(in)
		p.TrustedModules = committedModules(ctx, dir)
		p.StableDir = true // every clone of a repository finds its compiled packages
		if setup {
			p.Egress = r.setupEgress()
		}
		return p.Command(ctx, dir, argv, env)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 2 * time.Second
	return sandbox.Plain(cmd), nil
}

// RunSetup runs an instance's setup command (if any) the same way; it
// installs what the tests need from SetupHosts alone.
func (r *TestRunner) RunSetup(ctx context.Context, dir string, in *Instance) error {
	if strings.TrimSpace(in.Setup) == "" {
		return nil
	}
	return r.runSetupLine(ctx, dir, in, in.Setup, fmt.Sprintf("setup %q", in.Setup))
}

// setupEgress is the egress of setup commands: SetupHosts, or none.
func (r *TestRunner) setupEgress() *sandbox.Egress {
	if len(r.SetupHosts) == 0 {
		return nil
	}
	return &sandbox.Egress{Hosts: r.SetupHosts, Run: "replay setup"}
}

// runSetupLine runs a setup's shell line under the time limit; what names
// it starts its error.
func (r *TestRunner) runSetupLine(ctx context.Context, dir string, in *Instance, line, what string) error {
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	cmd, err := r.command(ctx, dir, in, line, true, nil)
	if err != nil {
		return err
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v: %s", what, err, lastLines(out, 3))
	}
	return nil
}

// lastLines is the last n non-empty lines of out, joined by " | ".
func lastLines(out []byte, n int) string {
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			keep = append(keep, l)
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, " | ")
}
