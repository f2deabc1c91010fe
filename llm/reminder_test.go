package llm_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

func TestTheReminderEndsEveryRequestAndStaysOutOfTheHistory(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Call("read_file", `{"path": "main.go"}`),
		llmtest.Reply("main.go is the entry point."),
	})
	c, _ := newClient(t, srv)
	var calls atomic.Int32
	a := &llm.Agent{Model: c, Tools: []llm.Tool{readTool(map[string]string{"main.go": "package main"}, &calls)},
		Reminder: "Call exactly one tool."}
	out, err := a.Run(t.Context(), userMsg("What is main.go?"))
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	first, second := reqs[0].Messages, reqs[1].Messages
	assert.True(t, strings.HasSuffix(first[len(first)-1].Content, "<reminder>Call exactly one tool.</reminder>"), "the task ends with it")
	last := second[len(second)-1]
	assert.Equal(t, llm.ToolRole, last.Role)
	assert.Equal(t, "package main\n\n<reminder>Call exactly one tool.</reminder>", last.Content, "the tool result ends with it")
	assert.NotContains(t, second[len(second)-3].Content, "reminder", "the earlier message went back as it was first sent without the reminder")
	for _, m := range out.Messages {
		assert.NotContains(t, m.Content, "<reminder>", "the history keeps no reminder")
	}
}

func TestTheTextProtocolsReminderNamesTheActionForm(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("done")})
	c, _ := newClient(t, srv)
	var calls atomic.Int32
	a := &llm.Agent{Model: c, Protocol: llm.ProtocolText, Reminder: "One action per reply.", Tools: []llm.Tool{readTool(nil, &calls)}}
	_, err := a.Run(t.Context(), userMsg("go"))
	require.NoError(t, err)
	msgs := srv.Requests()[0].Messages
	assert.Contains(t, msgs[len(msgs)-1].Content, "One action per reply. To use a tool, write name=>argument on its own line.")
}
