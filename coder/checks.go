package coder

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/internal/procenv"
	"github.com/issuesmith/issuesmith/internal/sandbox"

	clippkg "github.com/issuesmith/issuesmith/internal/clip"
)

// CheckResult is the outcome of one validation command (go build, go vet or a
// repository check command) after the run's edits.
type CheckResult struct {
	Name     string        `json:"name"`    // "go build", "go vet" or the configured command
	Command  string        `json:"command"` // the command line as run
	OK       bool          `json:"ok"`
	TimedOut bool          `json:"timed_out,omitempty"`
	Output   string        `json:"output,omitempty"` // combined output, truncated
	Duration time.Duration `json:"duration"`
	Round    int           `json:"round"` // 0 = first check, n = after fix round n
	// Refused: the check was not run (no bubblewrap sandbox on the host, a
	// Debian package the setup names is missing, pyflakes is not installed,
	// a pip install needs egress); Output's first line says why. It is not
	// fed back to the model.
	Refused bool `json:"refused,omitempty"`
	// Note marks a refused result that is information, not a gap in the
	// validation (pyflakes or python3 not installed, Python checks on a
	// host without bubblewrap, a pip install left out for want of egress):
	// Result.OK does not count it.
	Note bool `json:"note,omitempty"`
}

// Output truncation: keep the head (the first errors are usually the cause)
// and the tail (summaries such as "FAIL pkg"), and say what was dropped.
const (
	maxOutputBytes = 6000
	maxOutputLines = 120
)

// truncateOutput shortens command output to at most maxOutputLines lines and
// about maxOutputBytes bytes, keeping the first third and the last two thirds
// and naming how many lines were left out.
func truncateOutput(s string) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) <= maxOutputLines && len(s) <= maxOutputBytes {
		return s
	}
	headN, tailN := maxOutputLines/3, maxOutputLines-maxOutputLines/3
	if len(lines) < headN+tailN {
		headN, tailN = len(lines)/3, len(lines)-len(lines)/3
	}
	head, tail := lines[:headN], lines[len(lines)-tailN:]
	for bytesOf(head)+bytesOf(tail) > maxOutputBytes && len(head)+len(tail) > 2 {
		if len(tail) > len(head)*2 {
			tail = tail[1:]
		} else {
			head = head[:len(head)-1]
		}
	}
	omitted := len(lines) - len(head) - len(tail)
	var b strings.Builder
	for _, l := range head {
		b.WriteString(clip(l, maxOutputBytes/4) + "\n")
	}
	fmt.Fprintf(&b, "… %d lines omitted …\n", omitted)
	for i, l := range tail {
		b.WriteString(clip(l, maxOutputBytes/4))
		if i < len(tail)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func bytesOf(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n
}

// clip shortens one line to n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string { return clippkg.Bytes(s, n, " …(line cut)") }

// runner runs validation commands in the worktree.
type runner struct {
	dir     string
	timeout time.Duration
	// policy is the sandbox of commands run with sandboxed set (the one
	// policy of internal/sandbox: caches, limits, egress).
	policy sandbox.Policy
}

// run executes argv in the worktree with the timeout and a scrubbed
// environment: the bot's own secrets (API keys, the App's private key) live in
// its environment and must never reach repository code. With sandboxed it
// runs under r.policy's bubblewrap sandbox.
func (r runner) run(ctx context.Context, name string, argv []string, env []string, sandboxed bool) CheckResult {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	start := time.Now()
	res := CheckResult{Name: name, Command: strings.Join(argv, " ")}
	cmd, err := r.command(ctx, argv, append(baseEnv(), env...), sandboxed)
	if err != nil {
		res.Output = err.Error()
		// Below the disk's floor nothing runs: not the model's to fix.
		res.Refused = errors.Is(err, sandbox.ErrLowSpace)
		return res
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	res.Duration = time.Since(start).Round(time.Millisecond)
	res.OK = err == nil
	if note := limitNote(err); note != "" {
		out.WriteString(note)
	} else if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.TimedOut, res.OK = true, false
		out.WriteString(fmt.Sprintf("\n(timed out after %s)", r.timeout))
	} else if err != nil && !isExit(err) {
		out.WriteString("\n" + err.Error())
	}
	res.Output = truncateOutput(out.String())
	return res
}

// command builds the process: in the sandbox, or plain in its own process
// group (the context's end kills the group).
func (r runner) command(ctx context.Context, argv, env []string, sandboxed bool) (*sandbox.Cmd, error) {
	if sandboxed {
		p := r.policy
		p.StableDir = true // a new worktree still finds this repository's compiled packages
		return p.Command(ctx, r.dir, argv, env)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = r.dir
	cmd.Env = env
	return plainCommand(cmd), nil
}

func isExit(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee)
}

// baseEnv keeps only what a build needs from our environment, after
// procenv's rule has removed the bot's settings.
func baseEnv() []string {
	keep := []string{"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "USER",
		"GOPATH", "GOCACHE", "GOMODCACHE", "GOROOT", "GOPRIVATE", "GONOSUMDB"}
	scrubbed := procenv.Scrubbed()
	var env []string
	for _, k := range keep {
		if v, ok := procenv.Lookup(scrubbed, k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// goPackages returns the "./dir" patterns of the Go packages containing the
// touched (still existing) .go files, sorted, and whether a go.mod exists at
// the worktree root.
func goPackages(t *tree, touched []string) []string {
	if _, ok, _ := t.read("go.mod"); !ok {
		return nil
	}
	seen := map[string]bool{}
	var pkgs []string
	for _, p := range touched {
		if !strings.HasSuffix(p, ".go") {
			continue
		}
		if _, ok, _ := t.read(p); !ok {
			continue
		}
		d := "./" + path.Dir(p)
		if d == "./." {
			d = "."
		}
		if !seen[d] {
			seen[d] = true
			pkgs = append(pkgs, d)
		}
	}
	sort.Strings(pkgs)
	return pkgs
}

// goChecks builds and vets the touched packages when a Go toolchain is on
// PATH. Modules are not downloaded (GOPROXY=off), the toolchain line of
// go.mod is ignored (GOTOOLCHAIN=local) and go.mod/go.sum stay as they are
// (the default -mod=readonly, or vendor): a check fetches and writes nothing.
// They run in the sandbox (cgo compiles the repository's C); without
// bubblewrap they run outside it with CGO_ENABLED=0, so no C compiler reads
// what the repository's cgo preambles name (the go tool itself executes no
// repository code).
func (r runner) goChecks(ctx context.Context, pkgs []string) []CheckResult {
	if len(pkgs) == 0 {
		return nil
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		return nil
	}
	env := []string{"GOTOOLCHAIN=local", "GOPROXY=off"}
	sandboxed := sandbox.Check() == nil
	if !sandboxed {
		env = append(env, "CGO_ENABLED=0")
	}
	// -o /dev/null: a main package must not leave a binary in the worktree.
	build := r.run(ctx, "go build", append([]string{gobin, "build", "-o", os.DevNull}, pkgs...), env, sandboxed)
	build.Command = "go build " + strings.Join(pkgs, " ")
	if !build.OK {
		return []CheckResult{build}
	}
	vet := r.run(ctx, "go vet", append([]string{gobin, "vet"}, pkgs...), env, sandboxed)
	vet.Command = "go vet " + strings.Join(pkgs, " ")
	return []CheckResult{build, vet}
}

// commandChecks runs the repository's configured check commands through sh
// in the sandbox; without bubblewrap each is refused, not run.
// env is added to each (PATH with the setup's virtual environment).
func (r runner) commandChecks(ctx context.Context, cmds, env []string) []CheckResult {
	var res []CheckResult
	sbErr := sandbox.Check()
	for _, c := range cmds {
		if strings.TrimSpace(c) == "" {
			continue
		}
		if sbErr != nil {
			res = append(res, CheckResult{Name: c, Command: c, Refused: true,
				Output: "not run: check commands run only in a bubblewrap sandbox: " + sbErr.Error()})
			continue
		}
		res = append(res, r.run(ctx, c, []string{"sh", "-c", c}, env, true))
	}
	return res
}
