package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSetupAsUsersWriteIt(t *testing.T) {
	t.Parallel()
	c, err := ParseRepo([]byte(`version: 1
run_commands: true
egress: {hosts: [pypi.org, files.pythonhosted.org]}
setup:
  packages: [python3-pytest, python3-pyqt5, libqt5webkit5-dev, g++]
  commands:
    - pip install -e .
    - |
      python3 -m pip install -r requirements.txt
      echo ready
`))
	require.NoError(t, err)
	assert.Equal(t, []string{"python3-pytest", "python3-pyqt5", "libqt5webkit5-dev", "g++"}, c.Setup.Packages)
	assert.Equal(t, "pip install -e .", c.Setup.Commands[0])
	assert.Contains(t, c.Setup.Commands[1], "echo ready")
	assert.Empty(t, DefaultRepo().Setup, "no setup by default")
}

func TestSetupRefusedNamesKeyAndLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 5000)
	for _, tc := range []struct {
		name, yaml, key string
		line            int
		msg             string
	}{
		{"unknown key", "version: 1\nsetup:\n  apt: [x]\n", "setup.apt", 3, "unknown key"},
		{"option as a package", "version: 1\nsetup:\n  packages:\n    - python3-pytest\n    - --admindir=/tmp\n", "setup.packages", 5, "not a Debian package name"},
		{"upper case", "version: 1\nsetup:\n  packages: [PyQt5]\n", "setup.packages", 3, `"PyQt5"`},
		{"shell in a name", "version: 1\nsetup:\n  packages: ['a;rm -rf /']\n", "setup.packages", 3, "not a Debian package name"},
		{"one letter", "version: 1\nsetup:\n  packages: [a]\n", "setup.packages", 3, "not a Debian package name"},
		{"packages not a list", "version: 1\nsetup:\n  packages: python3-pytest\n", "setup.packages", 3, "want a list of strings"},
		{"empty command", "version: 1\nsetup:\n  commands:\n    - make\n    - \"  \"\n", "setup.commands", 5, "entry 1 is empty"},
		{"long command", "version: 1\nsetup:\n  commands: [" + long + "]\n", "setup.commands", 3, "longer than 4096"},
		{"index not a URL", "version: 1\nsetup:\n  index_url: pypi.example.com\n", "setup.index_url", 3, "not an http(s) URL"},
		{"index with a password", "version: 1\nsetup:\n  index_url: https://u:p@pypi.example.com/simple\n", "setup.index_url", 3, "must not hold a user"},
		{"index with a quote", "version: 1\nsetup:\n  index_url: \"https://pypi.example.com/'x\"\n", "setup.index_url", 3, "quote"},
		{"setup not a mapping", "version: 1\nsetup: [pip install .]\n", "setup", 2, "want a mapping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseRepo([]byte(tc.yaml))
			var re *RepoError
			require.True(t, errors.As(err, &re), "%v", err)
			assert.Equal(t, tc.key, re.Key)
			assert.Equal(t, tc.line, re.Line)
			assert.Contains(t, re.Msg, tc.msg)
		})
	}
}

func TestValidPackageName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"python3-pyqt5.qtwebengine": true, "g++": true, "libc6": true, "0ad": true, "xvfb": true,
		"-x": false, ".x": false, "x": false, "Python3": false, "a b": false, "pkg:amd64": false, "": false,
		"a/b": false, "a=1.0": false,
	} {
		assert.Equal(t, want, ValidPackageName(name), name)
	}
}
