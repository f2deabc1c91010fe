package coder

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/work"
)

// runFailing implements a two-item plan against script and returns what
// Implement gave.
func runFailing(t *testing.T, script llmtest.Script) (*Result, *llmtest.Server, error) {
	t.Helper()
	ws := fixture(t, map[string]string{
		"a.go": "package p\n\nfunc A() int { return 1 }\n", "b.go": "package p\n\nfunc B() int { return 1 }\n",
	})
	srv := llmtest.NewServer(t, script)
	client, err := llm.NewClient(llm.Config{BaseURL: srv.URL(), Model: "test-coder", Retry: llm.RetryConfig{MaxAttempts: 1}})
	require.NoError(t, err)
	c, err := New(client, Options{SkipGoChecks: true})
	require.NoError(t, err)
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "t"}, &work.Plan{Items: []work.Item{
		item("a.go", work.ActionModify, "Make `A` return 2."), item("b.go", work.ActionModify, "Make `B` return 2."),
	}})
	require.NotNil(t, res, "the result comes with the error")
	require.True(t, res.Changes.Empty(), "nothing was written")
	require.False(t, res.OK())
	return res, srv, err
}

// TestModelFailuresComeOutAsModelFailure: when the coder wrote nothing
// because of the model or its server, Implement's error is the
// *llm.ModelFailure naming what the model did, its plan item and the
// setting to change (so `bot solve` and the App blame the model, not the
// plan or the issue).
func TestModelFailuresComeOutAsModelFailure(t *testing.T) {
	t.Parallel()
	t.Run("the server's chat template refuses the request", func(t *testing.T) {
		t.Parallel()
		res, srv, err := runFailing(t, llmtest.Script{{Expect: llmtest.Expect{Role: "coder"}, Forever: true,
			Faults: []llmtest.Fault{{Status: 500, Message: "Jinja Exception: Conversation roles must alternate user/assistant/user/assistant/..."}}}})
		require.ErrorIs(t, err, llm.ErrModelFailed)
		require.ErrorIs(t, err, llm.ErrTemplate)
		require.ErrorContains(t, err, "plan item a.go")
		require.Len(t, srv.Requests(), 1, "a template error is not retried, and b.go is not attempted")
		require.Contains(t, res.Items[1].Reason, "not attempted: the model failed on a.go")
	})
	t.Run("every reply cut at the output limit", func(t *testing.T) {
		t.Parallel()
		_, _, err := runFailing(t, llmtest.Script{
			llmtest.Reply("<file-edit filePath=\"a.go\">\n------- SEARCH\nfunc A").Finish(llm.FinishLength).
				When(llmtest.Expect{Role: "coder"}).Always()})
		require.ErrorIs(t, err, llm.ErrModelFailed)
		require.ErrorContains(t, err, "output limit")
		require.ErrorContains(t, err, "MAX_COMPLETION_TOKENS")
		require.ErrorContains(t, err, "plan item a.go")
	})
}

// TestModelFailureAfterAnItemIsDoneKeepsTheResult: an item done means the
// plan was partly written; the run's result stands and names the failed
// item's reason, with no error.
func TestModelFailureAfterAnItemIsDoneKeepsTheResult(t *testing.T) {
	t.Parallel()
	ws := fixture(t, map[string]string{
		"a.go": "package p\n\nfunc A() int { return 1 }\n", "b.go": "package p\n\nfunc B() int { return 1 }\n",
	})
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("<file-edit filePath=\"a.go\">\n------- SEARCH\nfunc A() int { return 1 }\n=======\nfunc A() int { return 2 }\n+++++++ REPLACE\n</file-edit>").
			When(llmtest.Expect{Role: "coder", Last: "# Your item: a.go"}),
		llmtest.Reply("I would change B.").When(llmtest.Expect{Role: "coder"}).Always(),
	})
	client, err := llm.NewClient(llm.Config{BaseURL: srv.URL(), Model: "test-coder"})
	require.NoError(t, err)
	c, err := New(client, Options{SkipGoChecks: true})
	require.NoError(t, err)
	res, err := c.Implement(t.Context(), ws, &work.Spec{Topic: "t"}, &work.Plan{Items: []work.Item{
		item("a.go", work.ActionModify, "Make `A` return 2."), item("b.go", work.ActionModify, "Make `B` return 2."),
	}})
	require.NoError(t, err)
	require.Equal(t, []string{"a.go"}, res.Changes.Paths())
	require.Equal(t, ItemFailed, itemByPath(t, res, "b.go").Status)
}
