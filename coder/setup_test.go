package coder

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

func TestNeedsIndex(t *testing.T) {
	t.Parallel()
	for c, want := range map[string]bool{
		"pip install -e .":                     true,
		"pip3 install -r requirements.txt":     true,
		"python3 -m pip install .":             true,
		"python3.11 -m pip install pytest":     true,
		"make deps && pip install -e .[test]":  true,
		"cd src\npip install .":                true,
		"uv pip install -e .":                  true,
		"pip install --no-index -e .":          false,
		"pip list":                             false,
		"echo pip install":                     true, // a word, as a shell would see it: better asked than run
		"./scripts/pipinstall.sh":              false,
		"python3 -m compileall -q qutebrowser": false,
		"python3 scripts/dev/build_release.py": false,
		"pipx install tox":                     false,
	} {
		assert.Equal(t, want, NeedsIndex(c), c)
	}
}

func TestSetupPlanFollowsEgress(t *testing.T) {
	t.Parallel()
	s := Setup{Commands: []string{"pip install -e .", "python3 -c 'import qutebrowser'"}}
	none := s.Plan(nil)
	assert.False(t, none.Venv, "no egress: no venv")
	assert.Equal(t, []string{"pip install -e ."}, none.NeedEgress)
	assert.Equal(t, []string{"python3 -c 'import qutebrowser'"}, none.Run)
	assert.Contains(t, s.EgressNote(none.NeedEgress), "pypi.org and files.pythonhosted.org")

	half := s.Plan(&sandbox.Egress{Hosts: []string{"pypi.org"}})
	assert.False(t, half.Venv, "pip needs both PyPI hosts")

	pypi := s.Plan(&sandbox.Egress{Hosts: []string{"pypi.org", "*.pythonhosted.org"}})
	assert.True(t, pypi.Venv)
	assert.Equal(t, s.Commands, pypi.Run)

	own := Setup{Commands: s.Commands, IndexURL: "https://pypi.example.com:8443/simple"}
	assert.False(t, own.Plan(&sandbox.Egress{Hosts: []string{"pypi.example.com"}}).Venv, "443 and 80 only")
	assert.True(t, own.Plan(&sandbox.Egress{Hosts: []string{"pypi.example.com:8443"}}).Venv)
	assert.Contains(t, own.Script(own.Plan(&sandbox.Egress{Hosts: []string{"pypi.example.com:8443"}})),
		"index-url = %s\\n' 'https://pypi.example.com:8443/simple'")

	noCmds := Setup{Packages: []string{"python3-pytest"}}.Plan(&sandbox.Egress{Hosts: []string{"*"}})
	assert.False(t, noCmds.Venv, "nothing to install into a venv")
}

// TestMissingPackagesAsksDpkg asks the host's real dpkg: an installed
// package is not named, an unknown one is, and a name that looks like an
// option is a name (after --), never an option of dpkg-query.
func TestMissingPackagesAsksDpkg(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("dpkg-query"); err != nil {
		t.Skip("not a Debian-based host")
	}
	out, err := exec.Command("dpkg-query", "-W", "-f=${db:Status-Abbrev}", "coreutils").Output()
	if err != nil || !strings.HasPrefix(string(out), "ii") {
		t.Skip("coreutils is not a dpkg package here")
	}
	missing, err := MissingPackages(t.Context(), []string{"coreutils", "issuesmith-no-such-package", "--version"})
	require.NoError(t, err)
	assert.Equal(t, []string{"issuesmith-no-such-package", "--version"}, missing)
	msg := MissingNote(missing[:1])
	assert.Contains(t, msg, "issuesmith-no-such-package")
	assert.Contains(t, msg, "apt-get install issuesmith-no-such-package")
}
