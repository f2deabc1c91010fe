package replay_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/agents"
	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/replay"
)

// The oracle resolves the fixture through the App's real pipeline: its
// spec names the gold file, the plan has its one item, the coder's blocks
// go through the edit engine and go build/vet, and the real tests judge.
func TestOracleResolvesThroughThePipeline(t *testing.T) {
	f := newFixture(t)
	in := f.instance
	in.ProblemStatement = "# Add is wrong for negative numbers\n\nAdd(-1, 2) returns 3; it should return 1."
	var answers []string
	oracle := replay.Oracle{Coder: agents.Coder{Options: coder.Options{}}, Answered: func(_ string, a []string) { answers = a }}
	results, err := f.runner(t, oracle, 5*time.Minute).Run(t.Context(), []replay.Instance{in})
	require.NoError(t, err)
	res := results[0]
	assert.Equal(t, replay.StatusResolved, res.Status, res.Reason)
	assert.Equal(t, "oracle", res.Model)
	assert.Equal(t, []string{"calc.go"}, res.Changed)
	var stages []string
	for _, s := range res.Stages {
		stages = append(stages, s.Stage)
	}
	assert.Equal(t, []string{"clone", "oracle", "explore", "plan", "code", "setup", "tests"}, stages)
	assert.Positive(t, res.Usage.PromptTokens, "the oracle's answers are accounted like a model's")
	// What the agents were told, through their own tools and formats.
	require.Len(t, answers, 4, "%q", answers)
	assert.Equal(t, `explorer read_file {"path":"calc.go"}`, answers[0])
	assert.Contains(t, answers[1], `explorer submit_spec {`)
	assert.Contains(t, answers[1], `"files":[{"path":"calc.go","action":"modify"`)
	assert.Contains(t, answers[2], `planner {"items":[{"path":"calc.go","action":"modify"`)
	assert.Equal(t, "coder <chat>The fix's change to calc.go.</chat>", answers[3])
}

// A gold patch with a second hunk in a file of repeated lines and a new
// file: every block lands where it belongs and the new file is created
// through the coder's empty-SEARCH block.
func TestOracleWritesMultiHunkAndNewFiles(t *testing.T) {
	f := newFixture(t)
	body := "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int {\n\tif a < 0 {\n\t\treturn b - a\n\t}\n\treturn a + b\n}\n"
	twice := "\n// Sub returns a-b.\nfunc Sub(a, b int) int {\n\tif a < 0 {\n\t\treturn b - a\n\t}\n\treturn a - b\n}\n"
	writeFiles(t, f.repository, map[string]string{"calc.go": body + twice})
	gitRun(t, f.repository, "commit", "-qam", "sub")
	base := gitRun(t, f.repository, "rev-parse", "HEAD")
	fixed := "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n" +
		"\n// Sub returns a-b.\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"
	writeFiles(t, f.repository, map[string]string{"calc.go": fixed, "mul.go": "package calc\n\n// Mul returns a*b.\nfunc Mul(a, b int) int { return a * b }\n",
		"mul_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 || Sub(-1, 2) != -3 {\n\t\tt.Fatal()\n\t}\n}\n"})
	gitRun(t, f.repository, "add", "-A")
	gitRun(t, f.repository, "commit", "-qm", "fix2")
	fix := gitRun(t, f.repository, "rev-parse", "HEAD")
	in := replay.Instance{ID: "acme__calc-2", Repo: "acme/calc", BaseCommit: base,
		Patch:            gitRun(t, f.repository, "diff", base, fix, "--", "calc.go", "mul.go") + "\n",
		TestPatch:        gitRun(t, f.repository, "diff", base, fix, "--", "mul_test.go") + "\n",
		ProblemStatement: "Sub is wrong for negative numbers, and there is no Mul.",
		FailToPass:       []string{"TestMul"}, PassToPass: []string{"TestOld"}} // the default test command
	results, err := f.runner(t, replay.Oracle{}, 5*time.Minute).Run(t.Context(), []replay.Instance{in})
	require.NoError(t, err)
	res := results[0]
	assert.Equal(t, replay.StatusResolved, res.Status, res.Reason)
	assert.ElementsMatch(t, []string{"calc.go", "mul.go"}, res.Changed)
}

// What the oracle cannot write is said per instance, and the run goes on:
// a gold patch that does not match the base commit is the oracle stage's
// failure, and a gold file under a blocked path is refused by the coder's
// guard as a real model's edit would be (the instance is not resolved).
func TestOracleLimitsAreReported(t *testing.T) {
	f := newFixture(t)
	stale := f.instance
	stale.ID, stale.FixCommit = "acme__calc-stale", ""
	stale.Patch = "diff --git a/calc.go b/calc.go\n--- a/calc.go\n+++ b/calc.go\n@@ -1,3 +1,3 @@\n package calc\n-// Mul returns a*b.\n+// Add adds.\n \n"
	stale.TestPatch = gitRun(t, f.repository, "diff", f.base, f.fix, "--", "calc_test.go") + "\n"

	blocked := f.instance
	blocked.ID, blocked.FixCommit = "acme__calc-blocked", ""
	require.NoError(t, os.MkdirAll(filepath.Join(f.repository, ".github", "workflows"), 0o755))
	writeFiles(t, f.repository, map[string]string{".github/workflows/ci.yml": "on: push\n"})
	gitRun(t, f.repository, "add", "-A")
	gitRun(t, f.repository, "commit", "-qm", "ci")
	blocked.BaseCommit = gitRun(t, f.repository, "rev-parse", "HEAD")
	blocked.Patch = "diff --git a/.github/workflows/ci.yml b/.github/workflows/ci.yml\n--- a/.github/workflows/ci.yml\n" +
		"+++ b/.github/workflows/ci.yml\n@@ -1 +1 @@\n-on: push\n+on: [push, pull_request]\n"
	blocked.TestPatch = stale.TestPatch

	results, err := f.runner(t, replay.Oracle{}, 5*time.Minute).Run(t.Context(), []replay.Instance{stale, blocked})
	require.NoError(t, err)
	require.Len(t, results, 2)
	assert.Equal(t, "stage_failed:oracle", results[0].Status)
	assert.Contains(t, results[0].Reason, "calc.go: hunk @@ -1,3 does not match the base file")
	assert.NotEqual(t, replay.StatusResolved, results[1].Status)
	assert.Empty(t, results[1].Changed, "the blocked file was not written")
}
