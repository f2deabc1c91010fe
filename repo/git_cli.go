package repo

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os/exec"
	"strconv"
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

// HostConfig is the configuration every git command the bot runs on the
// host starts from, above anything a configuration file says (command
// scope wins over every file): no hooks (core.hooksPath at a path that
// holds none, so post-commit, pre-push and reference-transaction never
// run, whatever a hooks folder holds), no fsmonitor, no credential helper,
// no submodule recursion, and only the transports the bot uses (https;
// http for loopback test servers; a local path only when the bot itself
// names it). With GIT_CONFIG_NOSYSTEM and GIT_CONFIG_GLOBAL=/dev/null
// (gitBaseEnv) no system or user file is read either, so the one file git
// still reads is the repository's own — and the bot's repositories keep
// theirs outside every sandbox (Worktree: the git directory lives beside
// the work tree, never in it). Git treats a repository's config as
// trusted code (CVE-2022-24765, CVE-2024-32002, the core.fsmonitor
// advisories); this is why no file a sandboxed command can write is ever
// one git reads.
var HostConfig = [][2]string{
	{"core.hooksPath", "/dev/null"},
	{"core.fsmonitor", "false"},
	{"core.untrackedCache", "false"},
	{"credential.helper", ""},
	{"protocol.allow", "never"},
	{"protocol.https.allow", "always"},
	{"protocol.http.allow", "always"},
	{"protocol.file.allow", "user"},
	{"submodule.recurse", "false"},
	{"fetch.recurseSubmodules", "false"},
	{"diff.external", ""},
	{"core.pager", "cat"},
}

// gitCmd says where one git command runs.
type gitCmd struct {
	dir string // the process's working directory
	// gitDir and workTree, when set, are GIT_DIR and GIT_WORK_TREE: git
	// finds nothing by looking around dir (a .git a sandboxed command left
	// in the work tree is never read).
	gitDir, workTree string
	token            string
}

// runGit runs the git CLI in dir. A token is passed as an HTTP header
// through GIT_CONFIG_* environment variables, never on the command line nor
// in a URL; git's output and the returned error are redacted.
func runGit(ctx context.Context, dir, token string, args ...string) (cliResult, error) {
	return gitCmd{dir: dir, token: token}.run(ctx, args...)
}

// run runs git with args; see runGit.
func (g gitCmd) run(ctx context.Context, args ...string) (cliResult, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.dir
	cfg := HostConfig
	red := redact.Secrets{}
	if g.token != "" {
		basic := base64.StdEncoding.EncodeToString([]byte(gitUser + ":" + g.token))
		red = redact.New(g.token, basic)
		cfg = append(cfg[:len(cfg):len(cfg)], [2]string{"http.extraHeader", "Authorization: Basic " + basic})
	}
	cmd.Env = append(gitBaseEnv(), configEnv(cfg)...)
	if g.gitDir != "" {
		cmd.Env = append(cmd.Env, "GIT_DIR="+g.gitDir, "GIT_WORK_TREE="+g.workTree)
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

// configEnv is cfg as GIT_CONFIG_COUNT/KEY/VALUE variables: command-scope
// configuration that never appears on a command line.
func configEnv(cfg [][2]string) []string {
	env := []string{"GIT_CONFIG_COUNT=" + strconv.Itoa(len(cfg))}
	for i, kv := range cfg {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+kv[0], "GIT_CONFIG_VALUE_"+n+"="+kv[1])
	}
	return env
}

// gitBaseEnv is the process environment without the bot's own settings
// (procenv's rule, ISSUESMITH_*: the App's private key, the webhook secret,
// the model's API key) and without any GIT_* variable the host had (a
// GIT_DIR or GIT_CONFIG_PARAMETERS of the operator's shell must not steer
// the bot's git), plus the settings that keep git from reading any system
// or user configuration file or asking anyone for anything.
func gitBaseEnv() []string {
	var env []string
	for _, kv := range procenv.Scrubbed() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "GIT_PROTOCOL_FROM_USER=1", "LC_ALL=C")
}

// GitEnv is gitBaseEnv with HostConfig as command-scope configuration: the
// environment of a git the bot runs on the host outside this package
// (bot replay's clones).
func GitEnv() []string { return append(gitBaseEnv(), configEnv(HostConfig)...) }

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
