package repo

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os/exec"
	"strings"
	"syscall"

	"github.com/issuesmith/issuesmith/internal/procenv"
	"github.com/issuesmith/issuesmith/internal/redact"
)

// gitUser is the HTTP basic-auth user GitHub expects with an installation
// token.
const gitUser = "x-access-token"

// cliResult is the outcome of one git command.
type cliResult struct {
	stdout  string
	stderr  string
	maxRSS  int64 // peak resident memory of the git process, bytes
	exitErr error
}

// runGit runs the git CLI in dir. A token is passed as an HTTP header
// through GIT_CONFIG_* environment variables, never on the command line nor
// in a URL; git's output and the returned error are redacted.
func runGit(ctx context.Context, dir, token string, args ...string) (cliResult, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(),
		"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=",
		"GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	red := redact.Secrets{}
	if token != "" {
		basic := base64.StdEncoding.EncodeToString([]byte(gitUser + ":" + token))
		red = redact.New(token, basic)
		cmd.Env = append(cmd.Env, "GIT_CONFIG_COUNT=1",
			"GIT_CONFIG_KEY_0=http.extraHeader",
			"GIT_CONFIG_VALUE_0=Authorization: Basic "+basic)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := cliResult{stdout: stdout.String(), stderr: red.Text(strings.TrimSpace(stderr.String()))}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			res.maxRSS = ru.Maxrss * 1024 // Linux reports kilobytes
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.exitErr = err
		return res, fmt.Errorf("git %s: %s: %w", args[0], lastLine(res.stderr), red.Err(err))
	}
	return res, nil
}

// gitEnv is the process environment without the bot's own settings
// (procenv's rule, ISSUESMITH_*: the App's private key, the webhook secret,
// the model's API key): git works in untrusted checkouts and may start
// helpers, so it gets no secret it does not need.
func gitEnv() []string { return procenv.Scrubbed() }

// lastLine returns the last non-empty line of git's stderr, or a note when
// there is none.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return "no output"
}

// cliAvailable reports whether the git CLI can be run.
func cliAvailable() bool {
	_, err := exec.LookPath("git")
	return err == nil
}
