package coder

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/work"
)

const addSubGo = `package calc

func Add(a, b int) int {
	return a + b
}

func Sub(a, b int) int {
	return a - b
}
`

// implementOne runs Implement on calc.go (addSubGo) with one modify item.
func implementOne(t *testing.T, script string, opts Options) (*Result, string, [][]llm.Message) {
	t.Helper()
	res, got, sent, err := implementOneErr(t, script, opts)
	require.NoError(t, err)
	return res, got, sent
}

// implementOneErr is implementOne for a run that may end with an error
// (the model's failure) beside its result.
func implementOneErr(t *testing.T, script string, opts Options) (*Result, string, [][]llm.Message, error) {
	t.Helper()
	ws := fixture(t, map[string]string{"calc.go": addSubGo})
	opts.SkipGoChecks = true
	c, srv := scripted(t, script, opts)
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "t"}, &work.Plan{Items: []work.Item{
		item("calc.go", work.ActionModify, "Swap Add's operands and negate Sub's reversed difference."),
	}})
	require.NotNil(t, res, "the result comes with any error")
	require.Zero(t, srv.Remaining())
	var sent [][]llm.Message
	for _, r := range srv.Requests() {
		requireStrictHistory(t, r.Messages)
		sent = append(sent, r.Messages)
	}
	return res, readFile(t, ws, "calc.go"), sent, err
}

// requireStrictHistory fails when msgs break a rule strict providers
// enforce: an empty assistant message, a user message right after tool
// results, two user messages in a row.
func requireStrictHistory(t *testing.T, msgs []llm.Message) {
	t.Helper()
	for i, m := range msgs {
		if m.Role == llm.Assistant {
			require.False(t, strings.TrimSpace(m.Content) == "" && len(m.ToolCalls) == 0, "message %d: empty assistant message", i)
		}
		if i > 0 && m.Role == llm.User {
			require.NotEqual(t, llm.ToolRole, msgs[i-1].Role, "message %d: user right after tool results", i)
			require.NotEqual(t, llm.User, msgs[i-1].Role, "message %d: two user messages in a row", i)
		}
	}
}

func lastOf(msgs []llm.Message) string { return msgs[len(msgs)-1].Content }

func TestPartialApplyIsNotDoneWithoutAnExplicitDone(t *testing.T) {
	t.Parallel()
	res, got, sent := implementOne(t, "partial_then_prose", Options{Attempts: 5})
	require.Len(t, sent, 4, "announcing a step and an empty reply are refused, not taken as done")
	it := res.Items[0]
	require.Equal(t, ItemDone, it.Status)
	// The empty reply is asked again by the agent loop (llm.Run) and is no attempt.
	require.Equal(t, 3, it.Attempts)
	require.Contains(t, lastOf(sent[3]), "Your reply was empty")
	require.Contains(t, got, "return b + a")
	require.Contains(t, got, "return -(b - a)")

	// The report after the partial apply quotes the region as it is now.
	fb := lastOf(sent[1])
	require.Contains(t, fb, "REFUSED")
	require.Contains(t, fb, "Current text of calc.go around your changes")
	require.Contains(t, fb, "\treturn b + a\n")
	require.Contains(t, fb, "[lines 1–")
	require.Contains(t, lastOf(sent[2]), "still refused")
	require.Contains(t, lastOf(sent[2]), "<chat>done</chat>")
}

func TestFormatErrorsEndTheItem(t *testing.T) {
	t.Parallel()
	res, got, sent, err := implementOneErr(t, "format_errors", Options{Attempts: 6})
	require.Len(t, sent, 3)
	it := res.Items[0]
	require.Equal(t, ItemFailed, it.Status)
	require.Contains(t, it.Reason, "format: 3 replies in a row held no usable edit block")
	require.Equal(t, addSubGo, got)
	require.False(t, res.OK())
	// Nothing of the plan was done, because of the model: the run names it.
	require.ErrorIs(t, err, llm.ErrModelFailed)
	require.ErrorContains(t, err, "the coder's model wrote no usable edit in 3 replies")
	require.ErrorContains(t, err, "plan item calc.go")
	require.ErrorContains(t, err, "ISSUESMITH_MODEL_ROLES coder:NAME")
}

func TestCutReplyIsNeverApplied(t *testing.T) {
	t.Parallel()
	res, got, sent := implementOne(t, "cut_reply", Options{})
	require.Len(t, sent, 2)
	require.Contains(t, lastOf(sent[1]), "cut off at the output limit")
	require.NotContains(t, lastOf(sent[1]), "applied:", "nothing of the cut reply reached the engine")
	require.Equal(t, ItemDone, res.Items[0].Status)
	// Block 1 of the cut reply was complete, yet it is not in the file.
	require.Contains(t, got, "return a + b")
	require.Contains(t, got, "return -(b - a)")
}

func TestBlocksBesideAToolCallAreApplied(t *testing.T) {
	t.Parallel()
	res, got, sent := implementOne(t, "beside_tool", Options{})
	require.Len(t, sent, 1, "the blocks completed the item: no further turn")
	require.Equal(t, ItemDone, res.Items[0].Status)
	require.Contains(t, got, "return -(b - a)")
	require.Contains(t, got, "return a + b", "the draft inside <think> was not applied")
}

func TestReasoningBeforeALoneClosingThinkTagIsNotApplied(t *testing.T) {
	t.Parallel()
	res, got, _ := implementOne(t, "think_close", Options{})
	require.Equal(t, ItemDone, res.Items[0].Status)
	require.Contains(t, got, "func Add(a, b int) int {\n\treturn a + b\n}", "the draft deleting Add was reasoning")
	require.Contains(t, got, "return -(b - a)")
}

func TestContextWindowIsCompactedOnce(t *testing.T) {
	t.Parallel()
	res, got, sent := implementOne(t, "context_window", Options{})
	require.Len(t, sent, 3)
	require.Len(t, sent[2], 2, "system prompt and one user message after compaction")
	require.Equal(t, llm.User, sent[2][1].Role)
	prompt := sent[2][1].Content
	require.Contains(t, prompt, "Earlier turns were dropped")
	require.Contains(t, prompt, "return b + a", "the fresh prompt shows the file as it is now")
	it := res.Items[0]
	require.Equal(t, ItemDone, it.Status)
	require.Contains(t, strings.Join(it.Notes, "\n"), "compacted")
	require.Contains(t, got, "return -(b - a)")
}

func TestContextWindowTwiceFailsTheItemAndTheRunGoesOn(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{"a.go": "package p\n\nfunc A() int { return 1 }\n", "b.go": "package p\n\nfunc B() int { return 1 }\n"})
	c, srv := scripted(t, "context_window_twice", Options{SkipGoChecks: true})
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "t"}, &work.Plan{Items: []work.Item{
		item("a.go", work.ActionModify, "Make `A` return 2."), item("b.go", work.ActionModify, "Make `B` return 2."),
	}})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	ia := itemByPath(t, res, "a.go")
	require.Equal(t, ItemFailed, ia.Status)
	require.Contains(t, ia.Reason, "context_window")
	require.NotContains(t, ia.Reason, "token_budget")
	require.Equal(t, ItemDone, itemByPath(t, res, "b.go").Status)
}

func TestReviseFencedCodeIsNotADecline(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{"calc.go": addSubGo})
	c, srv := scripted(t, "revise_fence", Options{SkipGoChecks: true})
	res, err := c.Revise(t.Context(), ws, ReviewRequest{Path: "calc.go", Lines: LineRange{Start: 7}, Comment: "Please use subtraction the other way round."})
	require.NoError(t, err)
	require.Zero(t, srv.Remaining())
	require.Equal(t, ItemDone, res.Items[0].Status)
	require.Contains(t, readFile(t, ws, "calc.go"), "return -(b - a)")
}

func TestDeclineReason(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, reason string }{
		{"<chat>Add works on ints, so no change is needed.</chat>", "Add works on ints, so no change is needed."},
		{"<no-change>the test is right</no-change>", "the test is right"},
		{"The comment is a question; the code is right as it is.", "The comment is a question; the code is right as it is."},
		{"Here's the fix:\n```go\nreturn 1\n```", ""},
		{"Let me re-read the file.", ""},
		{"  ", ""},
	} {
		reason, _, ok := declineReason(tc.text)
		require.Equal(t, tc.reason != "", ok, tc.text)
		require.Equal(t, tc.reason, reason, tc.text)
	}
}

func TestAnswerText(t *testing.T) {
	t.Parallel()
	require.Equal(t, "\nanswer", answerText("<think>draft</think>\nanswer"))
	require.Equal(t, "\nanswer", answerText("reasoning\n</think>\nanswer"))
	require.Equal(t, "plain", answerText("plain"))
	require.True(t, explicitDone("<chat>Done.</chat>"))
	require.False(t, explicitDone("<chat>Done with Add, now Sub.</chat>"))
}

func TestModelErrorKeepsEarlierItems(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{
		"a.go": "package p\n\nfunc A() int { return 1 }\n", "b.go": "package p\n\nfunc B() int { return 1 }\n",
		"c.go": "package p\n\nfunc C() int { return 1 }\n",
	})
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, "testdata/model_error.yaml"))
	client, err := llm.NewClient(llm.Config{BaseURL: srv.URL(), Model: "test-coder"})
	require.NoError(t, err)
	plan := &work.Plan{Items: []work.Item{
		item("a.go", work.ActionModify, "Make `A` return 2."), item("b.go", work.ActionModify, "Make `B` return 2."),
		item("c.go", work.ActionModify, "Make `C` return 2."),
	}}
	statuses := plan.Pending() // what the events say, folded as the workflow folds them
	c, err := New(client, Options{SkipGoChecks: true, Progress: func(ev work.Event) { work.Apply(statuses, ev) }})
	require.NoError(t, err)
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "t"}, plan)
	require.NoError(t, err, "a model failure on one item keeps the run's result")
	require.Len(t, srv.Requests(), 2, "c.go is not attempted once the model failed")
	require.Equal(t, ItemDone, itemByPath(t, res, "a.go").Status)
	ib := itemByPath(t, res, "b.go")
	require.Equal(t, ItemFailed, ib.Status)
	require.Contains(t, ib.Reason, "model_error")
	require.Contains(t, ib.Reason, "not valid JSON")
	ic := itemByPath(t, res, "c.go")
	require.Equal(t, ItemFailed, ic.Status)
	require.Contains(t, ic.Reason, "not attempted: the model failed on b.go")
	require.Equal(t, []string{"a.go"}, res.Changes.Paths())
	require.Contains(t, readFile(t, ws, "a.go"), "return 2")
	require.False(t, res.OK())
	require.Len(t, statuses, 3)
	require.Equal(t, ItemFailed, statuses[2].Status)

	// The script's last reply, never asked for by the coder.
	_, err = client.Chat(t.Context(), llm.Request{Role: llm.RoleCoder, Messages: []llm.Message{{Role: llm.User, Content: "end"}}})
	require.NoError(t, err)
}

func TestCoderCostAndStepBudgets(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a.go": "package p\n\nfunc A() int { return 1 }\n", "b.go": "package p\n\nfunc B() int { return 1 }\n"}
	plan := &work.Plan{Items: []work.Item{item("a.go", work.ActionModify, "Make `A` return 2."), item("b.go", work.ActionModify, "Make `B` return 2.")}}

	t.Run("cost", func(t *testing.T) {
		t.Parallel()
		ws := fixture(t, files)
		srv := llmtest.NewServer(t, llmtest.LoadScript(t, "testdata/budgets.yaml"))
		client, err := llm.NewClient(llm.Config{BaseURL: srv.URL(), Model: "test-coder",
			Prices: map[string]llm.Price{"test-coder": {Prompt: 1, Completion: 1}}})
		require.NoError(t, err)
		c, err := New(client, Options{SkipGoChecks: true, MaxCost: 0.5})
		require.NoError(t, err)
		res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "t"}, plan)
		require.NoError(t, err)
		require.Len(t, srv.Requests(), 1)
		require.Contains(t, itemByPath(t, res, "a.go").Reason, "cost_budget")
		require.Contains(t, itemByPath(t, res, "b.go").Reason, "cost budget of 0.50 is spent")
	})
	t.Run("steps", func(t *testing.T) {
		t.Parallel()
		ws := fixture(t, files)
		c, srv := scripted(t, "step_limit", Options{SkipGoChecks: true, MaxSteps: 2})
		res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "t"}, &work.Plan{Items: plan.Items[:1]})
		require.NoError(t, err)
		require.Len(t, srv.Requests(), 2)
		require.Contains(t, res.Items[0].Reason, "step_limit")
	})
}

func TestPartialApplyThenExplicitDone(t *testing.T) {
	t.Parallel()
	res, got, sent := implementOne(t, "partial_then_done", Options{})
	require.Len(t, sent, 2)
	require.Equal(t, ItemDone, res.Items[0].Status)
	require.Contains(t, got, "return b + a")
	require.Contains(t, got, "return a - b", "the refused block was given up, as the model said")
}
