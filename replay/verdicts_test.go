package replay_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/replay"
)

func TestAJudgedTreeIsJudgedFromItsVerdict(t *testing.T) {
	f := newFixture(t)
	path := filepath.Join(t.TempDir(), "verdicts.jsonl")
	run := func(solver replay.Solver) replay.Result {
		t.Helper()
		v, err := replay.OpenTreeVerdicts(path)
		require.NoError(t, err)
		defer v.Close()
		r := f.runner(t, solver, 5*time.Minute)
		r.Verdicts = v
		results, err := r.Run(t.Context(), []replay.Instance{f.instance})
		require.NoError(t, err)
		return results[0]
	}
	first := run(replay.Gold{})
	assert.Equal(t, replay.StatusResolved, first.Status, first.Reason)
	assert.Empty(t, first.Reused, "nothing judged yet: the tests ran")

	// The same change written by another solver is the same tree.
	same := run(writeSolver{files: map[string]string{"calc.go": goldCalc(t, f)}})
	assert.Equal(t, replay.StatusResolved, same.Status, same.Reason)
	assert.Contains(t, same.Reused, f.instance.ID, "judged from the first run")
	assert.Equal(t, replay.StageWall{Stage: "tests", Wall: 0}, same.Stages[len(same.Stages)-1])

	// Another tree runs its tests, and its failure is judged the same way later.
	broken := writeSolver{files: map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"}}
	for i, want := range []bool{false, true} {
		res := run(broken)
		assert.Equal(t, replay.StatusTestsFailed, res.Status, "round %d", i)
		assert.Equal(t, []string{"TestAdd/negative (fail)"}, res.Failing, "round %d", i)
		assert.Equal(t, want, res.Reused != "", "round %d: reused %q", i, res.Reused)
	}
}

func TestATimedOutRunIsNotKeptAsAVerdict(t *testing.T) {
	f := newFixture(t)
	path := filepath.Join(t.TempDir(), "verdicts.jsonl")
	v, err := replay.OpenTreeVerdicts(path)
	require.NoError(t, err)
	defer v.Close()
	in := f.instance
	in.TestCmd = "sleep 600; go test ./..."
	r := f.runner(t, replay.Gold{}, 2*time.Second)
	r.Verdicts = v
	results, err := r.Run(t.Context(), []replay.Instance{in})
	require.NoError(t, err)
	assert.Equal(t, replay.StatusStageFailed+"tests", results[0].Status)
	assert.Zero(t, v.Len(), "a timeout depends on the machine's load: tested again next time")
}

// goldCalc is calc.go as the fix commit has it.
func goldCalc(t *testing.T, f *fixture) string {
	t.Helper()
	return gitRun(t, f.repository, "show", f.fix+":calc.go") + "\n"
}
