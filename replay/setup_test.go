package replay_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/internal/sandbox"
	"github.com/issuesmith/issuesmith/internal/sandbox/sandboxtest"
	"github.com/issuesmith/issuesmith/replay"
)

// A repository's setup, as bot replay --setup takes it (or from the
// repository's committed .github/issuesmith.yml): the host must have its
// Debian packages, and its commands run in the sandbox before the tests —
// here one writes the module the tests import. The tree's own file (one
// the gold patch writes) is never read as configuration.
func TestReplaySetup(t *testing.T) {
	t.Parallel()
	sandboxtest.Need(t)
	if _, err := os.Stat("/usr/lib/python3/dist-packages/pytest"); err != nil {
		if os.Getenv("ISSUESMITH_REQUIRE_PYTEST") != "" {
			t.Fatal("Debian's python3-pytest is not installed and ISSUESMITH_REQUIRE_PYTEST is set")
		}
		t.Skip("Debian's python3-pytest is not installed")
	}
	repos := t.TempDir()
	dir := filepath.Join(repos, "acme", "pysetup")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	gitRun(t, dir, "init", "-q", "-b", "main")
	committed := "version: 1\nsetup:\n  packages: [python3-pytest]\n  commands:\n    - printf 'VALUE = 3\\n' > generated.py\n"
	writeFiles(t, dir, map[string]string{
		"calc.py":                "from generated import VALUE\n\n\ndef three():\n    return VALUE - 1\n",
		"conftest.py":            "import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n",
		"tests/test_calc.py":     "from calc import three\n\n\ndef test_imports():\n    assert True\n",
		".github/issuesmith.yml": committed,
	})
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-qm", "base")
	base := gitRun(t, dir, "rev-parse", "HEAD")
	writeFiles(t, dir, map[string]string{
		"calc.py":            "from generated import VALUE\n\n\ndef three():\n    return VALUE\n",
		"tests/test_calc.py": "from calc import three\n\n\ndef test_imports():\n    assert True\n\n\ndef test_three():\n    assert three() == 3\n",
		// Written by the fix, so in the tree the tests run in: never read.
		".github/issuesmith.yml": "version: 1\nsetup:\n  packages: [issuesmith-no-such-package]\n  commands: [touch pwned]\n",
	})
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-qm", "fix")
	fix := gitRun(t, dir, "rev-parse", "HEAD")
	in := replay.Instance{ID: "acme__pysetup-1", Repo: "acme/pysetup", BaseCommit: base, FixCommit: fix,
		GoldFiles: []string{"calc.py", ".github/issuesmith.yml"}, TestFiles: []string{"tests/test_calc.py"},
		FailToPass: []string{"tests/test_calc.py::test_three"}, PassToPass: []string{"tests/test_calc.py::test_imports"},
		TestCmd: "/usr/bin/python3 -m pytest -rA -p no:cacheprovider {test_ids}"}
	caches, err := sandbox.NewCaches(t.TempDir(), sandbox.CacheOptions{})
	require.NoError(t, err)
	run := func(t *testing.T, flags ...string) replay.Result {
		setups, err := replay.ParseSetups(flags)
		require.NoError(t, err)
		tests, _ := replay.NewTestRunner(t.Context(), 2*time.Minute, nil, caches)
		tests.Setups = setups
		r := &replay.Runner{Repos: repos, Solver: replay.Gold{}, Tests: *tests, Jobs: 1,
			Out: filepath.Join(t.TempDir(), "results.jsonl"), WorkDir: t.TempDir()}
		results, err := r.Run(t.Context(), []replay.Instance{in})
		require.NoError(t, err)
		require.Len(t, results, 1)
		return results[0]
	}
	file := func(t *testing.T, body string) string {
		p := filepath.Join(t.TempDir(), "setup.yml")
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}

	t.Run("the committed file", func(t *testing.T) {
		res := run(t)
		assert.Equal(t, replay.StatusResolved, res.Status, res.Reason)
	})
	t.Run("--setup for the repository", func(t *testing.T) {
		res := run(t, "ACME/pysetup="+file(t, committed), "other/repo="+file(t, "version: 1\nsetup: {packages: [issuesmith-no-such-package]}\n"))
		assert.Equal(t, replay.StatusResolved, res.Status, res.Reason)
	})
	t.Run("a missing package is named", func(t *testing.T) {
		res := run(t, file(t, "version: 1\nsetup:\n  packages: [python3-pytest, issuesmith-no-such-package]\n"))
		assert.Equal(t, replay.StatusStageFailed+"setup", res.Status)
		assert.Contains(t, res.Reason, "issuesmith-no-such-package")
		assert.Contains(t, res.Reason, "apt-get install issuesmith-no-such-package")
	})
	t.Run("pip without an index", func(t *testing.T) {
		res := run(t, file(t, "version: 1\nsetup:\n  commands: [pip install -e .]\n"))
		assert.Equal(t, replay.StatusStageFailed+"setup", res.Status)
		assert.Contains(t, res.Reason, "`pip install -e .` installs from a package index")
		assert.Contains(t, res.Reason, "--setup-hosts")
	})
}

func TestParseSetupsRefusesBadFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yml")
	require.NoError(t, os.WriteFile(bad, []byte("version: 1\nsetup:\n  packages: [Not-A-Name]\n"), 0o644))
	_, err := replay.ParseSetups([]string{bad})
	require.ErrorContains(t, err, ".github/issuesmith.yml:3: setup.packages: entry 0 (\"Not-A-Name\") is not a Debian package name")
	good := filepath.Join(dir, "good.yml")
	require.NoError(t, os.WriteFile(good, []byte("version: 1\n"), 0o644))
	_, err = replay.ParseSetups([]string{good, "acme/x=" + good, "ACME/X=" + good})
	require.ErrorContains(t, err, "two files for acme/x")
}

// The bench's setup files are read as strictly as a repository's.
func TestBenchSetupFilesParse(t *testing.T) {
	t.Parallel()
	s, err := replay.ParseSetups([]string{"qutebrowser/qutebrowser=bench/qutebrowser.yml"})
	require.NoError(t, err)
	require.Contains(t, s["qutebrowser/qutebrowser"].Packages, "python3-pyqt6.qtwebengine")
}
