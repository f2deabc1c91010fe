package oracle

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/work"
)

func TestParseFaults(t *testing.T) {
	f, err := ParseFaults("0.2")
	require.NoError(t, err)
	assert.Equal(t, Faults{Rate: 0.2, Seed: 1}, f)
	f, err = ParseFaults("0.5, 7")
	require.NoError(t, err)
	assert.Equal(t, Faults{Rate: 0.5, Seed: 7}, f)
	for _, bad := range []string{"", "x", "1.5", "-0.1", "0.2,-1", "0.2,x"} {
		_, err := ParseFaults(bad)
		assert.Error(t, err, bad)
	}
}

// The same seed and issue give the same faults; another seed others.
func TestFaultsAreDeterministic(t *testing.T) {
	a := answer{Calls: []llm.ToolCall{{ID: "1", Name: "read_file", Arguments: `{"path":"a.go"}`}}}
	seq := func(seed uint64, issue string) string {
		f := newFaulter(Faults{Rate: 0.5, Seed: seed}, issue)
		var kinds []string
		for range 40 {
			_, k := f.apply(llm.RoleExplorer, a)
			kinds = append(kinds, k)
		}
		return strings.Join(kinds, ",")
	}
	assert.Equal(t, seq(3, "issue"), seq(3, "issue"))
	assert.NotEqual(t, seq(3, "issue"), seq(4, "issue"))
	assert.NotEqual(t, seq(3, "issue"), seq(3, "another issue"))
	n := 0
	for _, k := range strings.Split(seq(3, "issue"), ",") {
		if k != "" {
			n++
		}
	}
	assert.InDelta(t, 20, n, 10, "about half the turns are faulty")
}

// After a stale block and a report, the oracle resends only the refused
// block, then says done.
func TestCoderResendsOnlyWhatIsNotApplied(t *testing.T) {
	fix := Fix{Path: "a.go", Action: work.ActionModify, Blocks: []Block{
		{Search: "func A() int {\n\treturn 1\n}\n", Replace: "func A() int {\n\treturn 2\n}\n"},
		{Search: "func B() int {\n\treturn 1\n}\n", Replace: "func B() int {\n\treturn 2\n}\n"},
	}}
	task := &Task{Fixes: []Fix{fix}}
	prompt := llm.Message{Role: llm.User, Content: "# Your item: a.go (modify)\n"}
	first, err := task.code(request{Role: llm.RoleCoder, Messages: []llm.Message{prompt}})
	require.NoError(t, err)
	stale := damage(FaultStaleCheck, first)
	assert.Contains(t, stale.Content, "stale_func B")
	assert.NotContains(t, stale.Content, "stale_func A")

	msgs := []llm.Message{prompt, {Role: llm.Assistant, Content: stale.Content},
		{Role: llm.User, Content: "1 of 2 blocks applied, 1 refused; changed: a.go.\nBlock 1 (a.go): applied at lines 1–3.\nBlock 2 (a.go): REFUSED (not_found): SEARCH occurs nowhere.\n"}}
	check, err := task.code(request{Role: llm.RoleCoder, Messages: msgs})
	require.NoError(t, err)
	assert.Equal(t, checkAnswer, check.Content)
	assert.True(t, check.forced)

	msgs = append(msgs, llm.Message{Role: llm.Assistant, Content: check.Content}, llm.Message{Role: llm.User, Content: "No edit applied."})
	rest, err := task.code(request{Role: llm.RoleCoder, Messages: msgs})
	require.NoError(t, err)
	assert.Contains(t, rest.Content, "return 2\n}\n+++++++ REPLACE")
	assert.Equal(t, []Block{fix.Blocks[1]}, rest.blocks)

	msgs = append(msgs, llm.Message{Role: llm.Assistant, Content: rest.Content}, llm.Message{Role: llm.User, Content: "All blocks applied."})
	done, err := task.code(request{Role: llm.RoleCoder, Messages: msgs})
	require.NoError(t, err)
	assert.Equal(t, doneAnswer, done.Content)

	// A cut reply applied nothing: everything is sent again.
	cut := damage(FaultCut, first)
	assert.Equal(t, llm.FinishLength, cut.Finish)
	again, err := task.code(request{Role: llm.RoleCoder, Messages: []llm.Message{prompt,
		{Role: llm.Assistant, Content: cut.Content}, {Role: llm.User, Content: "Your reply was cut off at the output limit"}}})
	require.NoError(t, err)
	assert.Len(t, again.blocks, 2)
}

// Reasoning faults keep the answer: the draft inside <think> is not a
// block the coder reads.
func TestThinkDraftIsNotAnAnswerBlock(t *testing.T) {
	fix := Fix{Path: "a.go", Action: work.ActionModify, Blocks: []Block{{Search: "x\n", Replace: "y\n"}}}
	first, err := (&Task{Fixes: []Fix{fix}}).code(request{Role: llm.RoleCoder, Messages: []llm.Message{{Role: llm.User, Content: "# Your item: a.go (modify)"}}})
	require.NoError(t, err)
	th := damage(FaultThink, first)
	assert.Equal(t, 2, strings.Count(th.Content, "------- SEARCH"))
	assert.Equal(t, []int{0}, sentBlocks(answerText(th.Content), fix.Blocks))
}
