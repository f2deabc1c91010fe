package replay_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/replay"
	"github.com/issuesmith/issuesmith/replay/oracle"
)

// Under faults at half its turns (cut and empty replies, reasoning, calls
// as text, glued and mistyped arguments, stale SEARCH blocks, "let me
// check"), the oracle's instances still resolve: the pipeline recovers,
// and each result says what the faults cost.
func TestOracleUnderFaultsStillResolves(t *testing.T) {
	f := newFixture(t)
	var insts []replay.Instance
	for i := range 4 {
		in := f.instance
		in.ID = fmt.Sprintf("acme__calc-%d", i+1)
		in.ProblemStatement = fmt.Sprintf("# Add is wrong for negative numbers (report %d)\n\nAdd(-1, 2) returns 3; it should return 1.", i+1)
		insts = append(insts, in)
	}
	var mu sync.Mutex
	var answers []string
	o := replay.Oracle{Faults: oracle.Faults{Rate: 0.5, Seed: 7}, Answered: func(_ string, a []string) {
		mu.Lock()
		defer mu.Unlock()
		answers = append(answers, a...)
	}}
	results, err := f.runner(t, o, 5*time.Minute).Run(t.Context(), insts)
	require.NoError(t, err)
	injected := 0
	for _, res := range results {
		assert.Equal(t, replay.StatusResolved, res.Status, "%s: %s", res.ID, res.Reason)
		require.NotNil(t, res.Faults, res.ID)
		injected += res.Faults.Injected()
		assert.Equal(t, res.Calls, res.Faults.Calls)
	}
	t.Logf("answers:\n%s", strings.Join(answers, "\n"))
	assert.Positive(t, injected)
}
