package llm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

func TestChatJSONReturnsInvalidJSONToTheModel(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply(`{"title": "Fix crash", "files": [`).WithUsage(10, 5, 0),
		llmtest.Reply("```json\n{\"title\": \"Fix crash\", \"files\": [\"main.go\"]}\n```").
			When(llmtest.Expect{LastRole: "user", Last: "not valid JSON"}).WithUsage(20, 6, 0),
	})
	c, _ := newClient(t, srv)
	var v struct {
		Title string   `json:"title"`
		Files []string `json:"files"`
	}
	resp, err := llm.ChatJSON(t.Context(), c, llm.Request{Role: llm.RolePlanner, Messages: userMsg("plan")}, &v, 2)
	require.NoError(t, err)
	assert.Equal(t, "Fix crash", v.Title)
	assert.Equal(t, []string{"main.go"}, v.Files)
	assert.Equal(t, llm.Usage{PromptTokens: 30, CompletionTokens: 11}, resp.Usage)
	for _, r := range srv.Requests() {
		assert.True(t, r.JSON)
	}
}

func TestChatJSONGivesUpWithClearError(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("Sure! Here is the plan"), llmtest.Reply("still prose")})
	c, _ := newClient(t, srv)
	var v map[string]any
	_, err := llm.ChatJSON(t.Context(), c, llm.Request{Messages: userMsg("plan")}, &v, 2)
	require.ErrorIs(t, err, llm.ErrInvalidJSON)
	assert.Contains(t, err.Error(), `"still prose"`)
}

func TestChatJSONWithoutServerJSONMode(t *testing.T) {
	t.Parallel()
	reject := llmtest.Fault{Status: 400, Message: "response_format is not supported by this model"}
	no := false
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply(`{"ok": true}`).After(reject).When(llmtest.Expect{Last: "Reply with one JSON object only."}),
		llmtest.Reply(`{"ok": true}`).When(llmtest.Expect{JSON: &no}),
	})
	c, sl := newClient(t, srv)
	var v struct{ OK bool }
	for range 2 {
		_, err := llm.ChatJSON(t.Context(), c, llm.Request{Messages: userMsg("are you ok?")}, &v, 1)
		require.NoError(t, err)
		assert.True(t, v.OK)
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.True(t, reqs[0].JSON)
	assert.False(t, reqs[1].JSON, "dropped after the refusal")
	assert.False(t, reqs[2].JSON, "and remembered")
	assert.Empty(t, sl.waits())
}

func TestChatJSONTellsACutReplyToBeShorter(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply(`{"title": "Fix crash", "files": ["main.go", "conf`).Finish(llm.FinishLength),
		llmtest.Reply(`{"title": "Fix crash", "files": ["main.go"]}`).When(llmtest.Expect{Last: "cut off at the output limit"}),
	})
	c, _ := newClient(t, srv)
	var v struct {
		Title string   `json:"title"`
		Files []string `json:"files"`
	}
	_, err := llm.ChatJSON(t.Context(), c, llm.Request{Role: llm.RolePlanner, Messages: userMsg("plan as JSON")}, &v, 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"main.go"}, v.Files)
}
