package coder

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/internal/sandbox"
	"github.com/issuesmith/issuesmith/internal/sandbox/sandboxtest"
)

// TestSetupMissingPackageIsNamed: a package the host lacks is named with
// the line that installs it; the setup commands and the repository's
// checks (which need it) do not run; the default checks still do.
func TestSetupMissingPackageIsNamed(t *testing.T) {
	t.Parallel()
	sandboxtest.Need(t)
	needDpkg(t)
	r, dir := checkRun(t, map[string]string{"app.py": "x = 1\n"}, Options{RunCommands: true,
		CheckCommands: []string{"touch check-ran"},
		Setup:         Setup{Packages: []string{"coreutils", "issuesmith-no-such-package"}, Commands: []string{"touch setup-ran"}}})
	checks := r.runChecks(t.Context(), []string{"app.py"}, 0)
	n := byName(checks, "setup packages")
	require.NotNil(t, n, "%+v", checks)
	assert.True(t, n.Refused)
	assert.Contains(t, n.Output, "issuesmith-no-such-package")
	assert.NotContains(t, n.Output, "coreutils")
	assert.Contains(t, n.Output, "apt-get install issuesmith-no-such-package")
	assert.NotNil(t, byName(checks, CheckPyCompile), "the default checks run")
	for _, f := range []string{"setup-ran", "check-ran"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.True(t, os.IsNotExist(err), "%s: ran without its packages", f)
	}
	again := r.runChecks(t.Context(), []string{"app.py"}, 1)
	assert.NotNil(t, byName(again, "setup packages"), "said in every round, so the last round's list has it")
	assert.Empty(t, fixable(again, []string{"app.py"}))
	assert.False(t, (&Result{Checks: again}).OK(), "the repository's checks did not run: the validation is not complete")
}

// TestSetupVenvOnlyWithAnIndex: with egress to PyPI the setup makes a
// virtual environment in the repository's own cache (the host's Debian
// packages visible in it) and the checks run in it; without, no venv, the
// host's Python, and a pip install is reported as needing egress, not run.
func TestSetupVenvOnlyWithAnIndex(t *testing.T) {
	t.Parallel()
	sandboxtest.Need(t)
	needPython(t, "python3-pytest", "python3-venv")
	prefix := `python3 -c "import sys, pytest; print('prefix', sys.prefix)"`
	setup := Setup{Commands: []string{"pip install -e .", prefix + " > setup-prefix"}}
	checks := []string{prefix}

	t.Run("no index", func(t *testing.T) {
		t.Parallel()
		r, dir := checkRun(t, map[string]string{"app.py": "x = 1\n"}, Options{RunCommands: true, Setup: setup, CheckCommands: checks})
		res := r.runChecks(t.Context(), []string{"app.py"}, 0)
		n := byName(res, "setup")
		require.NotNil(t, n, "%+v", res)
		assert.True(t, n.Refused)
		assert.True(t, n.Note, "said, and the other commands and the checks ran")
		assert.Contains(t, n.Output, "`pip install -e .` installs from a package index")
		ran := byName(res, prefix)
		require.NotNil(t, ran)
		assert.Contains(t, ran.Output, "prefix /usr", "the host's Python and its Debian packages")
		b, err := os.ReadFile(filepath.Join(dir, "setup-prefix"))
		require.NoError(t, err, "the other setup command ran")
		assert.Equal(t, "prefix /usr\n", string(b))
		_, err = os.Stat(filepath.Join(r.c.opts.Sandbox.Caches.RepoDir(r.tree.repo), "cache", "venv"))
		assert.True(t, os.IsNotExist(err), "no venv without an index")
	})
	t.Run("PyPI allowed", func(t *testing.T) {
		t.Parallel()
		egress := &sandbox.Egress{Hosts: []string{"pypi.org", "files.pythonhosted.org"}, Run: t.Name()}
		noPip := Setup{Commands: setup.Commands[1:]} // the index itself is not reachable from here
		r, dir := checkRun(t, map[string]string{"app.py": "x = 1\n"}, Options{RunCommands: true, Setup: noPip,
			CheckCommands: checks, Sandbox: sandbox.Policy{Egress: egress}})
		res := r.runChecks(t.Context(), []string{"app.py"}, 0)
		s := byName(res, "setup")
		require.NotNil(t, s, "%+v", res)
		require.True(t, s.OK, s.Output)
		b, err := os.ReadFile(filepath.Join(dir, "setup-prefix"))
		require.NoError(t, err)
		assert.Equal(t, "prefix "+VenvDir+"\n", string(b), "the setup ran in the venv, pytest from the host visible")
		ran := byName(res, prefix)
		require.NotNil(t, ran)
		assert.Contains(t, ran.Output, "prefix "+VenvDir, "the checks run in the venv")
		_, err = os.Stat(filepath.Join(r.c.opts.Sandbox.Caches.RepoDir(r.tree.repo), "cache", "venv", "pyvenv.cfg"))
		assert.NoError(t, err, "the venv is kept with the repository's caches")
		again := r.runChecks(t.Context(), []string{"app.py"}, 1)
		assert.True(t, byName(again, "setup").OK)
		assert.Equal(t, s.Duration, byName(again, "setup").Duration, "run once: the next round repeats its result")
	})
}

// TestSetupIsConfined is the setup's attack matrix: its commands run in
// the sandbox, so they cannot write beside the worktree, read the bot's
// key or environment, or leave anything the bot later runs on the host (a
// venv's python3 replaced by a script runs in the sandbox only).
func TestSetupIsConfined(t *testing.T) {
	// Not parallel: t.Setenv.
	sandboxtest.Need(t)
	needPython(t, "python3-venv")
	t.Setenv("ISSUESMITH_TEST_SECRET", "hunter2-setup")
	conf := t.TempDir()
	key := filepath.Join(conf, "app.pem")
	require.NoError(t, os.WriteFile(key, []byte("PRIVATE-KEY-BYTES"), 0o600))
	outside := filepath.Join(t.TempDir(), "outside")
	marker := filepath.Join(t.TempDir(), "ran-on-host")
	egress := &sandbox.Egress{Hosts: []string{"pypi.org", "files.pythonhosted.org"}, Run: t.Name()}
	r, dir := checkRun(t, map[string]string{"app.py": "x = 1\n"}, Options{RunCommands: true,
		CheckCommands: []string{"python3 -c 'print(1)'"},
		Sandbox:       sandbox.Policy{Egress: egress, ReadOnly: []string{conf}, Hide: []string{key}},
		Setup: Setup{Commands: []string{
			"echo x > " + outside + " || echo write-outside-refused",
			"cat " + key + " || echo key-refused",
			"env",
			"printf '#!/bin/sh\\ntouch " + marker + "\\nexec /usr/bin/python3 \"$@\"\\n' > " + VenvDir + "/bin/python3.new && " +
				"chmod +x " + VenvDir + "/bin/python3.new && mv " + VenvDir + "/bin/python3.new " + VenvDir + "/bin/python3",
			"mkdir -p .github && printf 'version: 1\\nrun_commands: true\\nchecks: [{run: touch " + marker + "}]\\n' > .github/issuesmith.yml",
		}}})
	res := r.runChecks(t.Context(), []string{"app.py"}, 0)
	s := byName(res, "setup")
	require.NotNil(t, s, "%+v", res)
	require.True(t, s.OK, s.Output)
	assert.Contains(t, s.Output, "write-outside-refused")
	assert.Contains(t, s.Output, "key-refused")
	assert.NotContains(t, s.Output, "PRIVATE-KEY-BYTES")
	assert.NotContains(t, s.Output, "hunter2-setup")
	assert.NotContains(t, s.Output, "ISSUESMITH_")
	_, err := os.Stat(outside)
	assert.True(t, os.IsNotExist(err), "wrote beside the worktree")
	c := byName(res, "python3 -c 'print(1)'")
	require.NotNil(t, c)
	assert.True(t, c.OK, c.Output)
	assert.Contains(t, c.Output, "cannot touch", "the replaced python3 ran, in the sandbox, where the host's folder is not")
	for range 2 {
		r.runChecks(t.Context(), []string{"app.py"}, 1)
	}
	_, err = os.Stat(marker)
	assert.True(t, os.IsNotExist(err), "something the setup wrote ran on the host")
	assert.FileExists(t, filepath.Join(dir, ".github", "issuesmith.yml"), "written in the worktree, as data")
	assert.Equal(t, []string{"python3 -c 'print(1)'"}, r.c.opts.CheckCommands, "the coder never reads the tree's configuration")
}

func needDpkg(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/dpkg-query"); err != nil {
		t.Skip("not a Debian-based host")
	}
}
