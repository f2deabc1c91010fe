package replay_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/replay"
)

// submoduleInstance turns the fixture into a repository with a git
// submodule (integration, a second local repository) whose fix commit
// moves the submodule's pointer as well as fixing calc.go: the gold patch
// holds a gitlink entry beside the normal file.
func submoduleInstance(t *testing.T, f *fixture) replay.Instance {
	t.Helper()
	lib := t.TempDir()
	gitRun(t, lib, "init", "-q", "-b", "main")
	writeFiles(t, lib, map[string]string{"lib.txt": "v1\n"})
	gitRun(t, lib, "add", "-A")
	gitRun(t, lib, "commit", "-qm", "v1")
	gitRun(t, f.repository, "checkout", "-q", f.base)
	gitRun(t, f.repository, "-c", "protocol.file.allow=always", "submodule", "--quiet", "add", lib, "integration")
	gitRun(t, f.repository, "commit", "-qm", "add the integration submodule")
	base := gitRun(t, f.repository, "rev-parse", "HEAD")

	writeFiles(t, lib, map[string]string{"lib.txt": "v2\n"})
	gitRun(t, lib, "commit", "-qam", "v2")
	gitRun(t, filepath.Join(f.repository, "integration"), "pull", "-q", "--ff-only", "origin", "main")
	gitRun(t, f.repository, "checkout", "-q", f.fix, "--", "calc.go", "calc_test.go")
	gitRun(t, f.repository, "add", "-A")
	gitRun(t, f.repository, "commit", "-qm", "fix, and move the submodule")
	fix := gitRun(t, f.repository, "rev-parse", "HEAD")

	in := f.instance
	in.ID, in.BaseCommit, in.FixCommit = "acme__calc-submodule", base, fix
	in.GoldFiles = []string{"calc.go", "integration"}
	in.ProblemStatement = "# Add is wrong for negative numbers\n\nAdd(-1, 2) returns 3; it should return 1."
	return in
}

// A gold patch that moves a submodule's pointer beside a normal file: the
// oracle states the pointer as a limit and the explorer, planner and coder
// still work on calc.go, which resolves the instance. The clone's submodule
// folder is empty, as the bot's clones leave it.
func TestOracleStatesASubmodulePointerAndGoesOn(t *testing.T) {
	f := newFixture(t)
	in := submoduleInstance(t, f)
	var answers []string
	var lines strings.Builder
	r := f.runner(t, replay.Oracle{Answered: func(_ string, a []string) { answers = a }}, 5*time.Minute)
	r.Progress = (&replay.Lines{W: &lines}).Hear
	results, err := r.Run(t.Context(), []replay.Instance{in})
	require.NoError(t, err)
	res := results[0]
	assert.Equal(t, replay.StatusResolved, res.Status, res.Reason)
	assert.Equal(t, []string{"calc.go", "integration"}, res.Gold, "the gold patch does move the pointer")
	assert.Equal(t, []string{"calc.go"}, res.Changed, "only the normal file was written")
	require.Len(t, res.Limits, 1)
	assert.Contains(t, res.Limits[0], "integration: a git submodule's pointer (gitlink) moves; the bot cannot change")
	assert.Contains(t, lines.String(), "acme__calc-submodule resolved")
	assert.Contains(t, lines.String(), "; limits: integration: a git submodule's pointer")
	require.NotEmpty(t, answers)
	assert.Equal(t, `explorer read_file {"path":"calc.go"}`, answers[0], "the explorer ran")
	assert.Contains(t, strings.Join(answers, "\n"), `"files":[{"path":"calc.go","action":"modify"`)
	assert.NotContains(t, strings.Join(answers, "\n"), `"path":"integration"`)

	var sum strings.Builder
	replay.Summary(&sum, results)
	assert.Contains(t, sum.String(), "stated limits (1 instances):\n  acme__calc-submodule (resolved): integration: a git submodule's pointer")

	// The gold solver applies the same patch: git leaves the empty
	// submodule folder alone, and calc.go resolves it.
	gold, err := f.runner(t, replay.Gold{}, 5*time.Minute).Run(t.Context(), []replay.Instance{in})
	require.NoError(t, err)
	assert.Equal(t, replay.StatusResolved, gold[0].Status, gold[0].Reason)
	assert.Empty(t, gold[0].Limits)
}

// A gold patch that only moves a submodule's pointer leaves the oracle
// nothing to write: the oracle stage says so, naming the pointer.
func TestOracleRefusesAPointerOnlyPatch(t *testing.T) {
	f := newFixture(t)
	in := submoduleInstance(t, f)
	in.ID, in.GoldFiles = "acme__calc-pointer-only", []string{"integration"}
	results, err := f.runner(t, replay.Oracle{}, 5*time.Minute).Run(t.Context(), []replay.Instance{in})
	require.NoError(t, err)
	res := results[0]
	assert.Equal(t, "stage_failed:oracle", res.Status)
	assert.Contains(t, res.Reason, "the gold patch changes nothing the bot can write: integration: a git submodule's pointer")
	assert.NotContains(t, res.Reason, "is a directory")
}
