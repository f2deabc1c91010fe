package replay_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/replay"
)

// fixture is a small Go repository the test builds with real git: a base
// commit whose Add is wrong for negative numbers, and a fix commit that
// corrects it and adds the subtest that proves it.
type fixture struct {
	repos      string // --repos
	base, fix  string // commits
	instance   replay.Instance
	goldPatch  string
	testPatch  string
	repository string // the git checkout under repos
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

const calcTest = "package calc\n\nimport \"testing\"\n\nfunc TestOld(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"1+2\")\n\t}\n}\n"

func newFixture(t *testing.T) *fixture {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	f := &fixture{repos: t.TempDir()}
	f.repository = filepath.Join(f.repos, "acme", "calc")
	require.NoError(t, os.MkdirAll(f.repository, 0o755))
	gitRun(t, f.repository, "init", "-q", "-b", "main")
	writeFiles(t, f.repository, map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc.go":      "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int {\n\tif a < 0 {\n\t\treturn b - a\n\t}\n\treturn a + b\n}\n",
		"calc_test.go": calcTest,
	})
	gitRun(t, f.repository, "add", "-A")
	gitRun(t, f.repository, "commit", "-qm", "base")
	f.base = gitRun(t, f.repository, "rev-parse", "HEAD")
	writeFiles(t, f.repository, map[string]string{
		"calc.go": "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
		"calc_test.go": calcTest + "\nfunc TestAdd(t *testing.T) {\n\tt.Run(\"negative\", func(t *testing.T) {\n" +
			"\t\tif Add(-1, 2) != 1 {\n\t\t\tt.Fatal(Add(-1, 2))\n\t\t}\n\t})\n}\n",
	})
	gitRun(t, f.repository, "add", "-A")
	gitRun(t, f.repository, "commit", "-qm", "fix")
	f.fix = gitRun(t, f.repository, "rev-parse", "HEAD")
	f.goldPatch = gitRun(t, f.repository, "diff", f.base, f.fix, "--", "calc.go") + "\n"
	f.testPatch = gitRun(t, f.repository, "diff", f.base, f.fix, "--", "calc_test.go") + "\n"
	f.instance = replay.Instance{ID: "acme__calc-1", Repo: "acme/calc", BaseCommit: f.base, FixCommit: f.fix,
		GoldFiles: []string{"calc.go"}, TestFiles: []string{"calc_test.go"},
		FailToPass: []string{"TestAdd/negative"}, PassToPass: []string{"TestOld"},
		TestCmd: "go test -run '^({tests})$' ./..."}
	return f
}

func (f *fixture) file(t *testing.T, instances ...replay.Instance) string {
	t.Helper()
	var b strings.Builder
	for _, in := range instances {
		line, err := json.Marshal(in)
		require.NoError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	p := filepath.Join(t.TempDir(), "instances.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

func (f *fixture) runner(t *testing.T, solver replay.Solver, timeout time.Duration) *replay.Runner {
	t.Helper()
	// The sandbox's default caches, one build cache for every fixture (they
	// are one test's repositories): warm from the second test on.
	tests, _ := replay.NewTestRunner(t.Context(), timeout, nil, nil)
	tests.Policy.Repo = "issuesmith-replay-tests"
	return &replay.Runner{Repos: f.repos, Solver: solver, Tests: *tests, Jobs: 1,
		Out: filepath.Join(t.TempDir(), "results.jsonl"), WorkDir: t.TempDir()}
}

// A solver that changes nothing or writes a given file: the model's part
// without a model, so the harness's judging can be checked both ways.
type writeSolver struct{ files map[string]string }

func (writeSolver) Name() string { return "scripted" }
func (s writeSolver) Solve(_ context.Context, dir string, _ *replay.Instance, _ string) (*replay.Solution, error) {
	for name, text := range s.files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	return &replay.Solution{Stages: []replay.StageWall{{Stage: "code", Wall: 0.01}}}, nil
}

func TestGoldResolvesFromAFixCommit(t *testing.T) {
	f := newFixture(t)
	r := f.runner(t, replay.Gold{}, 5*time.Minute)
	results, err := r.Run(t.Context(), []replay.Instance{f.instance})
	require.NoError(t, err)
	require.Len(t, results, 1)
	res := results[0]
	assert.Equal(t, replay.StatusResolved, res.Status, res.Reason)
	assert.Equal(t, []string{"calc.go"}, res.Changed)
	assert.Equal(t, []string{"calc.go"}, res.Gold)
	assert.Positive(t, res.Wall, "the wall time is recorded")
	assert.NotEmpty(t, res.At)
	// The original checkout is untouched: every instance works in its own clone.
	assert.Equal(t, f.fix, gitRun(t, f.repository, "rev-parse", "HEAD"))
	assert.Empty(t, gitRun(t, f.repository, "status", "--porcelain"))
}

func TestSWEBenchPatchFieldsWorkUnchanged(t *testing.T) {
	f := newFixture(t)
	// --repos given relative to the working directory, as a user types it.
	t.Chdir(filepath.Dir(f.repos))
	f.repos = filepath.Base(f.repos)
	in := f.instance
	in.FixCommit, in.GoldFiles, in.TestFiles = "", nil, nil
	in.Patch, in.TestPatch = f.goldPatch, f.testPatch
	// SWE-bench files hold the test lists as JSON-encoded strings.
	line, err := json.Marshal(in)
	require.NoError(t, err)
	text := strings.Replace(string(line), `"FAIL_TO_PASS":["TestAdd/negative"]`, `"FAIL_TO_PASS":"[\"TestAdd/negative\"]"`, 1)
	insts, bad, err := replay.ReadInstances(strings.NewReader(text + "\n"))
	require.NoError(t, err)
	require.Empty(t, bad)
	results, err := f.runner(t, replay.Gold{}, 5*time.Minute).Run(t.Context(), insts)
	require.NoError(t, err)
	assert.Equal(t, replay.StatusResolved, results[0].Status, results[0].Reason)
}

func TestAWrongChangeFailsTheNamedSubtest(t *testing.T) {
	f := newFixture(t)
	wrong := writeSolver{files: map[string]string{"calc.go": "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int {\n\treturn a + b + 0*a\n}\n\nvar _ = 1\n"}}
	broken := writeSolver{files: map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"}}
	none := writeSolver{}
	results, err := f.runner(t, wrong, 5*time.Minute).Run(t.Context(), []replay.Instance{f.instance})
	require.NoError(t, err)
	assert.Equal(t, replay.StatusResolved, results[0].Status, "an equivalent fix resolves: %s", results[0].Reason)

	results, err = f.runner(t, broken, 5*time.Minute).Run(t.Context(), []replay.Instance{f.instance})
	require.NoError(t, err)
	assert.Equal(t, replay.StatusTestsFailed, results[0].Status)
	assert.Equal(t, []string{"TestAdd/negative (fail)"}, results[0].Failing)
	assert.Equal(t, []string{"TestOld (fail)"}, results[0].Broken, "a PASS_TO_PASS test that now fails is reported")

	results, err = f.runner(t, none, 5*time.Minute).Run(t.Context(), []replay.Instance{f.instance})
	require.NoError(t, err)
	assert.Equal(t, replay.StatusNotApplied, results[0].Status)
}

func TestAHangingTestCommandIsKilled(t *testing.T) {
	f := newFixture(t)
	in := f.instance
	in.TestCmd = "sleep 600 & sleep 600; go test ./..."
	start := time.Now()
	results, err := f.runner(t, replay.Gold{}, 2*time.Second).Run(t.Context(), []replay.Instance{in})
	require.NoError(t, err)
	assert.Equal(t, replay.StatusStageFailed+"tests", results[0].Status, results[0].Reason)
	assert.Contains(t, results[0].Reason, "timed out")
	assert.Less(t, time.Since(start), 2*time.Minute, "the process group was not killed")
}

func TestBadInputIsPerInstanceAndTheRunGoesOn(t *testing.T) {
	f := newFixture(t)
	missing := f.instance
	missing.ID, missing.BaseCommit = "missing-base", strings.Repeat("0", 40)
	noRepo := f.instance
	noRepo.ID, noRepo.Repo = "no-repo", "acme/absent"
	badPatch := f.instance
	badPatch.ID, badPatch.FixCommit = "bad-patch", ""
	badPatch.Patch, badPatch.TestPatch = "diff --git a/calc.go b/calc.go\n--- a/calc.go\n+++ b/calc.go\n@@ -1,1 +1,1 @@\n-no such line\n+x\n", f.testPatch
	path := f.file(t, missing, noRepo, badPatch, f.instance)
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append([]byte("{\"instance_id\": \"broken\", \n"), text...), 0o644))

	insts, bad, err := replay.LoadInstances(path)
	require.NoError(t, err)
	require.Len(t, bad, 1, "the broken line is reported")
	assert.Equal(t, 1, bad[0].Line)
	results, err := f.runner(t, replay.Gold{}, 5*time.Minute).Run(t.Context(), insts)
	require.NoError(t, err)
	byID := map[string]replay.Result{}
	for _, r := range results {
		byID[r.ID] = r
	}
	assert.Equal(t, replay.StatusError, byID["missing-base"].Status)
	assert.Contains(t, byID["missing-base"].Reason, "0000000")
	assert.Equal(t, replay.StatusError, byID["no-repo"].Status)
	assert.NotEqual(t, replay.StatusResolved, byID["bad-patch"].Status)
	assert.Equal(t, replay.StatusResolved, byID[f.instance.ID].Status, "the good instance still ran")
	assert.Empty(t, gitRun(t, f.repository, "status", "--porcelain"), "nothing written outside the clones")
}

func TestAnInterruptedRunResumes(t *testing.T) {
	f := newFixture(t)
	second := f.instance
	second.ID = "acme__calc-2"
	r := f.runner(t, replay.Gold{}, 5*time.Minute)
	_, err := r.Run(t.Context(), []replay.Instance{f.instance})
	require.NoError(t, err)
	// Cancelled before the second instance could finish: nothing recorded for it.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = r.Run(ctx, []replay.Instance{f.instance, second})
	require.ErrorIs(t, err, context.Canceled)
	prior, err := replay.ReadResults(r.Out)
	require.NoError(t, err)
	assert.Len(t, prior, 1)
	// The rerun skips the first (already in the file) and runs the second.
	results, err := r.Run(t.Context(), []replay.Instance{f.instance, second})
	require.NoError(t, err)
	require.Len(t, results, 2)
	assert.Equal(t, replay.StatusResolved, results[1].Status, results[1].Reason)
	lines, err := os.ReadFile(r.Out)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(lines), "\n"), "one line per instance, none repeated")
}

// The configured-model mode runs the App's real stages (agents.Local) with a
// scripted model over HTTP: what the agents did (the scripted exchanges, all
// consumed) and the result the tests judge.
func TestPipelineWithAScriptedModel(t *testing.T) {
	f := newFixture(t)
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, "testdata/pipeline.yaml"))
	m, err := config.ParseModel([]string{"ISSUESMITH_MODEL_BASE_URL=" + srv.URL(), "ISSUESMITH_MODEL_NAME=scripted",
		"ISSUESMITH_MODEL_MAX_RETRIES=0"})
	require.NoError(t, err)
	in := f.instance
	in.ProblemStatement = "# Add is wrong for negative numbers\n\nAdd(-1, 2) returns 3; it should return 1."
	results, err := f.runner(t, &replay.Pipeline{Model: m}, 5*time.Minute).Run(t.Context(), []replay.Instance{in})
	require.NoError(t, err)
	res := results[0]
	assert.Equal(t, replay.StatusResolved, res.Status, res.Reason)
	assert.Equal(t, "scripted", res.Model)
	assert.Equal(t, []string{"calc.go"}, res.Changed)
	assert.Zero(t, srv.Remaining(), "every scripted exchange was used")
	var stages []string
	for _, s := range res.Stages {
		stages = append(stages, s.Stage)
	}
	assert.Equal(t, []string{"clone", "explore", "plan", "code", "setup", "tests"}, stages)
	assert.Equal(t, 3200, res.Usage.PromptTokens, "the model's usage is accounted")
}

func TestSelect(t *testing.T) {
	all := []replay.Instance{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	got, err := replay.Select(all, " c,a", 0)
	require.NoError(t, err)
	assert.Equal(t, []replay.Instance{{ID: "c"}, {ID: "a"}}, got)
	got, err = replay.Select(all, "", 2)
	require.NoError(t, err)
	assert.Len(t, got, 2)
	_, err = replay.Select(all, "a,zz", 0)
	assert.ErrorContains(t, err, `"zz"`)
}
