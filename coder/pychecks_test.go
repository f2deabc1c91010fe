package coder

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/internal/sandbox"
	"github.com/issuesmith/issuesmith/internal/sandbox/sandboxtest"
)

// checkRun is a run on a fresh folder holding files, with caches of its
// own (so a test's virtual environment is its own) and opts.
func checkRun(t *testing.T, files map[string]string, opts Options) (*run, string) {
	t.Helper()
	dir := t.TempDir()
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(body), 0o755))
	}
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	if opts.Sandbox.Caches == nil {
		caches, err := sandbox.NewCaches(t.TempDir(), sandbox.CacheOptions{})
		require.NoError(t, err)
		opts.Sandbox.Caches = caches
	}
	if opts.CheckTimeout == 0 {
		opts.CheckTimeout = 3 * time.Minute
	}
	opts.SkipGoChecks = true
	c := &Coder{opts: opts}
	return &run{c: c, tree: &tree{dir: dir, root: root, repo: "test/" + t.Name()}, res: &Result{}}, dir
}

func byName(checks []CheckResult, name string) *CheckResult {
	for i := range checks {
		if checks[i].Name == name {
			return &checks[i]
		}
	}
	return nil
}

// needPython skips (or, with ISSUESMITH_REQUIRE_PYTHON set, as in CI,
// fails) a test whose host lacks one of Debian's Python packages it uses:
// python3-pyflakes, python3-venv (ensurepip).
func needPython(t *testing.T, pkgs ...string) {
	t.Helper()
	where := map[string]string{"python3-pyflakes": "/usr/lib/python3/dist-packages/pyflakes",
		"python3-venv": "/usr/lib/python3.11/ensurepip", "python3-pytest": "/usr/lib/python3/dist-packages/pytest"}
	for _, p := range pkgs {
		found := false
		if _, err := os.Stat(where[p]); err == nil {
			found = true
		} else if p == "python3-venv" {
			found = exec.Command("/usr/bin/python3", "-c", "import ensurepip").Run() == nil
		}
		if found {
			continue
		}
		if os.Getenv("ISSUESMITH_REQUIRE_PYTHON") != "" {
			t.Fatalf("Debian's %s is not installed and ISSUESMITH_REQUIRE_PYTHON is set", p)
		}
		t.Skipf("Debian's %s is not installed (ISSUESMITH_REQUIRE_PYTHON=1 makes this a failure)", p)
	}
}

// TestPythonChecksByDefault: on a repository with no configuration, the
// changed .py files are byte-compiled and checked with pyflakes in the
// sandbox: a syntax error and a name used but never imported fail and are
// fed back, a clean change (an unused import is style, not a failure)
// passes, and files that were not changed are not read.
func TestPythonChecksByDefault(t *testing.T) {
	t.Parallel()
	sandboxtest.Need(t)
	needPython(t, "python3-pyflakes")
	files := map[string]string{
		"pkg/clean.py":   "import os\nimport sys\n\n\ndef main():\n    return sys.argv\n",
		"pkg/syntax.py":  "def f(:\n    pass\n",
		"pkg/undef.py":   "def dump(x):\n    return json.dumps(x)\n",
		"pkg/local.py":   "def f():\n    print(n)\n    n = 1\n",
		"untouched.py":   "def broken(:\n",
		"pkg/README.txt": "not python",
	}
	for _, tc := range []struct {
		changed []string
		check   string
		ok      bool
		want    string
	}{
		{[]string{"pkg/clean.py", "pkg/README.txt"}, CheckPyflakes, true, ""},
		{[]string{"pkg/clean.py", "pkg/syntax.py"}, CheckPyCompile, false, "pkg/syntax.py:1:7: SyntaxError:"},
		{[]string{"pkg/undef.py"}, CheckPyflakes, false, "pkg/undef.py:2:12: undefined name 'json'"},
		{[]string{"pkg/local.py"}, CheckPyflakes, false, "pkg/local.py:2:11: undefined name 'n'"},
	} {
		t.Run(strings.Join(tc.changed, ","), func(t *testing.T) {
			t.Parallel()
			r, _ := checkRun(t, files, Options{})
			checks := r.runChecks(t.Context(), tc.changed, 0)
			c := byName(checks, tc.check)
			require.NotNil(t, c, "%+v", checks)
			assert.Equal(t, tc.ok, c.OK, c.Output)
			assert.Contains(t, c.Output, tc.want)
			assert.NotContains(t, c.Output, "untouched.py")
			if !tc.ok {
				assert.Len(t, fixable(checks, tc.changed), 1, "fed back to the model")
			}
			if tc.check == CheckPyCompile && !tc.ok {
				assert.Nil(t, byName(checks, CheckPyflakes), "pyflakes runs after a clean compile only")
			}
		})
	}
}

// TestPythonChecksIgnoreTheTree: the checker is the host's, never a module
// of the same name in the repository (python3 -I keeps the worktree off
// sys.path), the compile writes no __pycache__ into the worktree, and an
// unchanged Python repository gets no check at all.
func TestPythonChecksIgnoreTheTree(t *testing.T) {
	t.Parallel()
	sandboxtest.Need(t)
	needPython(t, "python3-pyflakes")
	fake := "import sys\nsys.exit(0)\n"
	r, dir := checkRun(t, map[string]string{
		"pyflakes/__init__.py": fake, "pyflakes/api.py": fake, "warnings.py": fake,
		"app.py": "def f():\n    return undefined_thing\n",
	}, Options{})
	checks := r.runChecks(t.Context(), []string{"app.py"}, 0)
	c := byName(checks, CheckPyflakes)
	require.NotNil(t, c, "%+v", checks)
	assert.False(t, c.OK)
	assert.Contains(t, c.Output, "app.py:2:12: undefined name 'undefined_thing'")
	_, err := os.Stat(filepath.Join(dir, "__pycache__"))
	assert.True(t, os.IsNotExist(err), "no bytecode written into the worktree")
	assert.Empty(t, r.runChecks(t.Context(), []string{"docs/x.md"}, 0))
}

// TestPyflakesMissingIsANote: a Python without pyflakes (here the host's
// python3 started without its site packages, through a PATH entry in the
// worktree) still byte-compiles; pyflakes is reported as not run, with
// the package that installs it, and is not fed back.
func TestPyflakesMissingIsANote(t *testing.T) {
	t.Parallel()
	sandboxtest.Need(t)
	r, dir := checkRun(t, map[string]string{
		"bin/python3": "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n",
		"app.py":      "def f():\n    return undefined_thing\n",
	}, Options{})
	run := runner{dir: dir, timeout: time.Minute, policy: r.c.sandboxFor(r.tree)}
	checks := run.pythonChecks(t.Context(), []string{"app.py"}, []string{"PATH=" + dir + "/bin:/usr/bin:/bin"})
	require.Len(t, checks, 2, "%+v", checks)
	assert.True(t, checks[0].OK, checks[0].Output)
	assert.True(t, checks[1].Refused, "%+v", checks[1])
	assert.Contains(t, checks[1].Output, "apt-get install python3-pyflakes")
	assert.Empty(t, fixable(checks, []string{"app.py"}))
	assert.True(t, checks[1].Note)
	assert.True(t, (&Result{Checks: checks}).OK(), "a tool not installed is a note, not a failed validation")
}
