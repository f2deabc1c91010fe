package replay_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/replay"
)

// pytestPython is a Python that has pytest: the first python3 on PATH, else
// Debian's /usr/bin/python3 (package python3-pytest). Without one the test
// is skipped, or failed when ISSUESMITH_REQUIRE_PYTEST is set (CI).
func pytestPython(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-m", "pytest", "--version").Run() == nil {
			p, _ := exec.LookPath(py)
			return p
		}
	}
	if os.Getenv("ISSUESMITH_REQUIRE_PYTEST") != "" {
		t.Fatal("no python3 with pytest and ISSUESMITH_REQUIRE_PYTEST is set (Debian: apt-get install python3-pytest)")
	}
	t.Skip("no python3 with pytest (Debian: apt-get install python3-pytest)")
	return ""
}

// A Python repository is judged the same way: the test command runs pytest
// on the instance's node ids ({test_ids}) and each FAIL_TO_PASS and
// PASS_TO_PASS id is read from pytest's -rA summary — a parametrised id
// with brackets and spaces included.
func TestPytestInstanceIsJudgedByNodeID(t *testing.T) {
	py := pytestPython(t)
	repos := t.TempDir()
	dir := filepath.Join(repos, "acme", "pycalc")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	gitRun(t, dir, "init", "-q", "-b", "main")
	oldTests := "from calc import add\n\n\ndef test_old():\n    assert add(1, 2) == 3\n"
	writeFiles(t, dir, map[string]string{
		"calc.py":            "def add(a, b):\n    if a < 0:\n        return b - a\n    return a + b\n",
		"tests/test_calc.py": oldTests,
		"conftest.py":        "import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n",
	})
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-qm", "base")
	base := gitRun(t, dir, "rev-parse", "HEAD")
	writeFiles(t, dir, map[string]string{
		"calc.py": "def add(a, b):\n    return a + b\n",
		"tests/test_calc.py": oldTests + "\n\nimport pytest\n\n\n@pytest.mark.parametrize('a,b,want', [(-1, 2, 1), (-2, -3, -5)], ids=['neg one', 'both'])\n" +
			"def test_negative(a, b, want):\n    assert add(a, b) == want\n",
	})
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-qm", "fix")
	fix := gitRun(t, dir, "rev-parse", "HEAD")

	in := replay.Instance{ID: "acme__pycalc-1", Repo: "acme/pycalc", BaseCommit: base, FixCommit: fix,
		GoldFiles: []string{"calc.py"}, TestFiles: []string{"tests/test_calc.py"},
		FailToPass: []string{"tests/test_calc.py::test_negative[neg one]", "tests/test_calc.py::test_negative[both]"},
		PassToPass: []string{"tests/test_calc.py::test_old"},
		TestCmd:    py + " -m pytest -rA -p no:cacheprovider {test_ids}"}
	run := func(solver replay.Solver) replay.Result {
		tests, _ := replay.NewTestRunner(t.Context(), 2*time.Minute, nil, nil)
		r := &replay.Runner{Repos: repos, Solver: solver, Tests: *tests, Jobs: 1,
			Out: filepath.Join(t.TempDir(), "results.jsonl"), WorkDir: t.TempDir()}
		results, err := r.Run(t.Context(), []replay.Instance{in})
		require.NoError(t, err)
		require.Len(t, results, 1)
		return results[0]
	}

	res := run(replay.Gold{})
	assert.Equal(t, replay.StatusResolved, res.Status, res.Reason)

	// Half a fix: one parametrised case still fails, and is named.
	half := writeSolver{files: map[string]string{"calc.py": "def add(a, b):\n    if a < 0 and b < 0:\n        return b - a\n    return a + b\n"}}
	res = run(half)
	assert.Equal(t, replay.StatusTestsFailed, res.Status, res.Reason)
	assert.Equal(t, []string{"tests/test_calc.py::test_negative[both] (fail)"}, res.Failing)
	assert.Empty(t, res.Broken)
}

// The lines pytest writes that judging reads: -rA's short summary and -v's
// per-test lines; XFAIL passes and XPASS does not, as SWE-bench counts them.
func TestParseResultsReadsPytest(t *testing.T) {
	out := []byte("tests/test_a.py::test_one PASSED                                   [ 25%]\n" +
		"tests/test_a.py::test_two[x-1] FAILED                              [ 50%]\n" +
		"=========================== short test summary info ============================\n" +
		"PASSED tests/test_a.py::test_one\n" +
		"FAILED tests/test_a.py::test_two[x-1] - assert 1 == 2\n" +
		"ERROR tests/test_b.py::test_setup - RuntimeError: boom\n" +
		"XFAIL tests/test_b.py::test_known - reason: not yet\n" +
		"XPASS tests/test_b.py::test_lucky\n" +
		"SKIPPED [1] tests/test_b.py:9: no network\n" +
		"PASSED tests/test_c.py::test_p[neg one]\n" +
		"FAILED tests/test_c.py::test_p[a - b] - assert 3 == 4\n")
	assert.Equal(t, map[string]string{
		"tests/test_a.py::test_one":        "pass",
		"tests/test_a.py::test_two[x-1]":   "fail",
		"tests/test_b.py::test_setup":      "fail",
		"tests/test_b.py::test_known":      "pass",
		"tests/test_b.py::test_lucky":      "fail",
		"tests/test_c.py::test_p[neg one]": "pass",
		"tests/test_c.py::test_p[a - b]":   "fail",
	}, replay.ParseResults(out))
}
