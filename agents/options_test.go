package agents

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/internal/sandbox"
	"github.com/issuesmith/issuesmith/preagent"
)

// A repository's run_commands runs its checks on the bot's machine only when
// the server allows it (ISSUESMITH_ALLOW_CHECK_COMMANDS); the checks are
// still passed on, so turning the switch on needs no other change.
func TestRepositoryChecksNeedTheServersConsent(t *testing.T) {
	t.Parallel()
	rc, err := config.ParseRepo([]byte("version: 1\nrun_commands: true\nchecks:\n  - name: t\n    run: go test ./...\n"))
	require.NoError(t, err)
	o := (&Coder{}).OptionsFor(rc)
	require.False(t, o.RunCommands, "the server did not allow check commands")
	o = (&Coder{AllowChecks: true}).OptionsFor(rc)
	require.True(t, o.RunCommands)
	require.Equal(t, []string{"go test ./..."}, o.CheckCommands)
}

// The repository's settings become the coder's options (bot solve allows
// the checks: the checkout is the user's own).
func TestCoderOptionsFromRepoConfig(t *testing.T) {
	t.Parallel()
	rc, err := config.ParseRepo([]byte("version: 1\nrun_commands: true\nblocked_paths: [\"deploy/**\"]\n" +
		"checks:\n  - {name: unit, run: go test ./...}\nroles:\n  coder: {max_tokens: 1000, max_steps: 7, max_cost_usd: 0.5}\n"))
	if err != nil {
		t.Fatal(err)
	}
	o := CoderOptions(coder.Options{}, rc, true)
	if !o.RunCommands || len(o.CheckCommands) != 1 || o.CheckCommands[0] != "go test ./..." ||
		len(o.Blocked) != 1 || o.Blocked[0] != "deploy/**" || o.MaxTokens != 1000 || o.MaxSteps != 7 || o.MaxCost != 0.5 {
		t.Errorf("options = %+v", o)
	}
	if d := CoderOptions(coder.Options{}, config.DefaultRepo(), true); d.RunCommands || len(d.CheckCommands) != 0 {
		t.Errorf("defaults run commands: %+v", d)
	}
}

// line_edits (on by default) switches the coder's line-range edits.
func TestCoderLineEditsSwitch(t *testing.T) {
	t.Parallel()
	if o := CoderOptions(coder.Options{}, config.DefaultRepo(), false); o.NoLineEdits {
		t.Errorf("line edits off by default")
	}
	rc, err := config.ParseRepo([]byte("version: 1\nline_edits: false\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := CoderOptions(coder.Options{}, rc, false); !o.NoLineEdits {
		t.Errorf("line_edits: false left them on")
	}
}

// named_files (on by default) switches the explorer's named-files preview.
func TestExplorerNamedFilesSwitch(t *testing.T) {
	t.Parallel()
	if o := ExplorerOptions(preagent.Options{}, config.DefaultRepo()); o.NoNamedFiles {
		t.Errorf("named files off by default")
	}
	rc, err := config.ParseRepo([]byte("version: 1\nnamed_files: false\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := ExplorerOptions(preagent.Options{}, rc); !o.NoNamedFiles {
		t.Errorf("named_files: false left it on")
	}
}

// diagnostics (off by default) switches the coder's language servers.
func TestCoderDiagnosticsSwitch(t *testing.T) {
	t.Parallel()
	if o := CoderOptions(coder.Options{}, config.DefaultRepo(), false); o.Diagnostics {
		t.Errorf("diagnostics on by default")
	}
	rc, err := config.ParseRepo([]byte("version: 1\ndiagnostics: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := CoderOptions(coder.Options{}, rc, false); !o.Diagnostics {
		t.Errorf("diagnostics: true left them off")
	}
}

// apply_model (off by default) switches the coder's apply-model fallback;
// roles.apply is a role a repository may configure.
func TestCoderApplyModelSwitch(t *testing.T) {
	t.Parallel()
	if o := CoderOptions(coder.Options{}, config.DefaultRepo(), false); o.ApplyModel {
		t.Errorf("apply_model on by default")
	}
	rc, err := config.ParseRepo([]byte("version: 1\napply_model: true\nroles:\n  apply:\n    model: small\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := CoderOptions(coder.Options{}, rc, false); !o.ApplyModel {
		t.Errorf("apply_model: true left it off")
	}
	if got := rc.LLMRoles()["apply"].Model; got != "small" {
		t.Errorf("roles.apply.model = %q, want small", got)
	}
}

// A repository's egress hosts reach its checks only within the server's
// ceiling; the deprecated checks_network asks for the whole ceiling and
// never the host's network; the server's masked paths stay either way.
func TestChecksNetworkSwitch(t *testing.T) {
	t.Parallel()
	base := coder.Options{}
	base.Sandbox.Hide = []string{"/etc/issuesmith/key.pem"}
	if o := CoderOptions(base, config.DefaultRepo(), true); o.Sandbox.Egress != nil {
		t.Errorf("network on by default")
	}
	rc, err := config.ParseRepo([]byte("version: 1\nchecks_network: true\negress: {hosts: [a.example, b.example]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := CoderOptions(base, rc, true); o.Sandbox.Egress != nil {
		t.Errorf("no ceiling, yet the checks get a way out: %+v", o.Sandbox)
	}
	base.Sandbox.Egress = &sandbox.Egress{Hosts: []string{"a.example", "c.example"}}
	o := CoderOptions(base, rc, true)
	if o.Sandbox.Egress == nil || len(o.Sandbox.Hide) != 1 ||
		strings.Join(o.Sandbox.Egress.Hosts, ",") != "a.example,c.example" {
		t.Errorf("checks_network + egress under a ceiling: sandbox %+v egress %+v", o.Sandbox, o.Sandbox.Egress)
	}
}

// The repository's setup reaches the coder whole, and the egress it plans
// under is the repository's hosts within the server's ceiling: PyPI inside
// the ceiling gives the setup its venv, outside it none.
func TestCoderSetupFromRepoConfig(t *testing.T) {
	t.Parallel()
	rc, err := config.ParseRepo([]byte("version: 1\nrun_commands: true\negress: {hosts: [pypi.org, files.pythonhosted.org]}\n" +
		"setup:\n  packages: [python3-pytest]\n  commands: [pip install -e .]\n"))
	require.NoError(t, err)
	base := coder.Options{Sandbox: sandbox.Policy{Egress: &sandbox.Egress{Hosts: []string{"*.org"}}}}
	o := CoderOptions(base, rc, true)
	require.Equal(t, coder.Setup{Packages: []string{"python3-pytest"}, Commands: []string{"pip install -e ."}}, o.Setup)
	require.True(t, o.Setup.Plan(o.Sandbox.Egress).Venv, "PyPI within the ceiling")
	closed := CoderOptions(coder.Options{}, rc, true)
	p := closed.Setup.Plan(closed.Sandbox.Egress)
	require.False(t, p.Venv, "the default ceiling allows no host")
	require.Equal(t, []string{"pip install -e ."}, p.NeedEgress)
}
