package coder

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/issuesmith/issuesmith/internal/procenv"
	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// Setup is what a repository's checks need first (.github/issuesmith.yml's
// setup, mapped by agents.CoderOptions; bot replay's --setup): Debian
// packages the bot's host must have, and commands run in the sandbox
// before the first checks.
type Setup struct {
	// Packages are Debian package names (config.ValidPackageName), checked
	// on the host with dpkg-query and never installed.
	Packages []string
	// Commands run with sh -c in the worktree, in the sandbox.
	Commands []string
	// IndexURL is pip's index in the virtual environment ("": PyPI).
	IndexURL string
}

// VenvDir is where a repository's virtual environment lives inside the
// sandbox: in its own writable cache (sandbox.UserCacheDir), so every
// worktree of the repository finds what an earlier setup installed.
const VenvDir = sandbox.UserCacheDir + "/venv"

// ErrNoDpkg is MissingPackages' error on a host without dpkg-query.
var ErrNoDpkg = errors.New("dpkg-query not found: the bot's host is not Debian-based, so setup.packages cannot be checked")

// MissingPackages returns the names not installed on this host. It asks
// dpkg-query — dpkg's interface for frontends, which knows its own
// database's place and format (its status file is dpkg's internal record,
// also holding packages removed but not purged) — with the scrubbed
// environment. Every name must be a Debian package name, which starts with
// a letter or digit, so none reads as an option; nothing of the
// repository's runs.
func MissingPackages(ctx context.Context, names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	bin, err := exec.LookPath("dpkg-query")
	if err != nil {
		return nil, ErrNoDpkg
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	args := append([]string{"-W", "-f=${Package}\t${db:Status-Abbrev}\n", "--"}, names...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = procenv.Scrubbed()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	// Exit 1 names a package dpkg does not know; the known ones are listed.
	if err := cmd.Run(); err != nil && !isExit(err) {
		return nil, fmt.Errorf("dpkg-query: %w", err)
	}
	installed := map[string]bool{}
	for _, line := range strings.Split(out.String(), "\n") {
		name, status, ok := strings.Cut(line, "\t")
		name, _, _ = strings.Cut(name, ":") // a multi-arch package's name:arch
		if ok && strings.HasPrefix(status, "ii") {
			installed[name] = true
		}
	}
	var missing []string
	for _, n := range names {
		if !installed[n] && !slices.Contains(missing, n) {
			missing = append(missing, n)
		}
	}
	return missing, nil
}

// MissingNote says which packages the host lacks and how its operator
// installs them.
func MissingNote(missing []string) string {
	return fmt.Sprintf("the bot's host lacks Debian package(s) %s that setup.packages names; the bot never installs packages: "+
		"its operator runs `apt-get install %s` on the host (the sandbox sees the host's packages read-only)",
		strings.Join(missing, ", "), strings.Join(missing, " "))
}

// pipInstall finds a pip install (pip, pip3, python3 -m pip, uv pip) at
// the start of a shell command word.
var pipInstall = regexp.MustCompile(`(^|[;&|(\n]\s*|\s)((python3?(\.\d+)?\s+-m\s+)?pip3?|uv\s+pip)\s+install\b`)

// NeedsIndex reports whether command c installs from a package index: a
// pip install without --no-index.
func NeedsIndex(c string) bool {
	return pipInstall.MatchString(c) && !strings.Contains(c, "--no-index")
}

// IndexAllowed reports whether e lets pip reach the setup's index: the
// index URL's host, or PyPI's pypi.org and files.pythonhosted.org.
func (s Setup) IndexAllowed(e *sandbox.Egress) bool {
	if s.IndexURL == "" {
		return e.Allows("pypi.org", 443) && e.Allows("files.pythonhosted.org", 443)
	}
	u, err := url.Parse(s.IndexURL)
	if err != nil {
		return false
	}
	port := 443
	if u.Scheme == "http" {
		port = 80
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return false
		}
	}
	return e.Allows(u.Hostname(), port)
}

// SetupPlan is what a setup does under an egress: whether it makes the
// virtual environment, the commands it runs, and those it leaves out
// because they need an index the egress does not allow.
type SetupPlan struct {
	Venv       bool
	Run        []string
	NeedEgress []string
}

// Plan is the setup under egress e: a virtual environment when there are
// commands and e allows a package index; else no venv (the host's Debian
// packages, read-only, are what the checks get) and no pip install.
func (s Setup) Plan(e *sandbox.Egress) SetupPlan {
	var p SetupPlan
	index := s.IndexAllowed(e)
	for _, c := range s.Commands {
		if NeedsIndex(c) && !index {
			p.NeedEgress = append(p.NeedEgress, c)
			continue
		}
		p.Run = append(p.Run, c)
	}
	p.Venv = index && len(p.Run) > 0
	return p
}

// EgressNote says why commands were not run.
func (s Setup) EgressNote(cmds []string) string {
	hosts := "pypi.org and files.pythonhosted.org"
	if s.IndexURL != "" {
		if u, err := url.Parse(s.IndexURL); err == nil {
			hosts = u.Host
		}
	}
	return fmt.Sprintf("not run: %s installs from a package index, and the sandbox's egress does not allow %s "+
		"(list them in egress.hosts, and the operator in ISSUESMITH_EGRESS_HOSTS); the checks get the host's Debian packages only",
		strings.Join(quoteAll(cmds), ", "), hosts)
}

// Script is the sh script that runs p inside the sandbox: the virtual
// environment made (once per repository; again if its Python is gone)
// with the host's site packages visible, pip pointed at the index, then
// each command, stopping at the first that fails.
func (s Setup) Script(p SetupPlan) string {
	var b strings.Builder
	b.WriteString("set -e\n")
	if p.Venv {
		fmt.Fprintf(&b, "venv=%s\n", VenvDir)
		b.WriteString(`if ! "$venv/bin/python3" -c '' 2>/dev/null; then` + "\n")
		b.WriteString(`  echo "+ python3 -m venv --system-site-packages $venv"` + "\n")
		b.WriteString(`  python3 -I -m venv --system-site-packages --clear "$venv"` + "\n")
		b.WriteString("fi\n")
		if s.IndexURL != "" {
			fmt.Fprintf(&b, "printf '[global]\\nindex-url = %%s\\n' %s > \"$venv/pip.conf\"\n", shQuote(s.IndexURL))
		} else {
			b.WriteString(`rm -f "$venv/pip.conf"` + "\n")
		}
		b.WriteString(`export PATH="$venv/bin:$PATH"` + "\n")
	}
	for _, c := range p.Run {
		fmt.Fprintf(&b, "printf '+ %%s\\n' %s\n%s\n", shQuote(c), c)
	}
	return b.String()
}

// PathWith is the PATH of commands using the virtual environment: its bin
// first, then path.
func PathWith(venv bool, path string) string {
	if !venv {
		return path
	}
	return VenvDir + "/bin:" + path
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func quoteAll(cmds []string) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = "`" + firstLine(c) + "`"
	}
	return out
}
