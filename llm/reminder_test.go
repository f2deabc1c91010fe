package llm_test

import (
	"context"
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

// A hook's side question (State.Aside) goes out in the run's own request
// shape — the same tools, the conversation so far — with the question
// after it and no reminder, so a prompt cache serves the conversation; the
// reply stays out of the history. The question joins the last message: a
// user message in the text protocol (two in a row are refused by some
// providers), a tool result through the client otherwise.
func TestAsideAsksAfterTheConversationInItsShape(t *testing.T) {
	t.Parallel()
	for _, p := range []llm.Protocol{llm.ProtocolTools, llm.ProtocolText} {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			read := llmtest.Call("read_file", `{"path": "main.go"}`)
			if p == llm.ProtocolText {
				read = llmtest.Reply("read_file=>main.go")
			}
			srv := llmtest.NewServer(t, llmtest.Script{
				read,
				llmtest.Reply(`{"files":[]}`).When(llmtest.Expect{Last: "Which files matter?"}),
				llmtest.Reply("main.go is the entry point."),
			})
			c, _ := newClient(t, srv)
			var calls atomic.Int32
			var answer string
			a := &llm.Agent{Model: c, Protocol: p, Tools: []llm.Tool{readTool(map[string]string{"main.go": "package main"}, &calls)},
				Reminder: "Call exactly one tool.", Hooks: llm.Hooks{BeforeCall: func(ctx context.Context, s *llm.State) error {
					if s.Step != 2 {
						return nil
					}
					resp, err := s.Aside(ctx, "Which files matter?")
					if err == nil {
						answer = resp.Message.Content
					}
					return err
				}}}
			out, err := a.Run(t.Context(), userMsg("What is main.go?"))
			require.NoError(t, err)
			assert.Equal(t, `{"files":[]}`, answer)
			reqs := srv.Requests()
			require.Len(t, reqs, 3)
			aside, next := reqs[1], reqs[2]
			assert.Equal(t, next.Tools, aside.Tools, "the same tools")
			last := aside.Messages[len(aside.Messages)-1]
			assert.True(t, strings.HasSuffix(last.Content, "Which files matter?"))
			assert.NotContains(t, last.Content, "<reminder>")
			for i := 0; i < len(next.Messages)-1; i++ {
				assert.Equal(t, next.Messages[i].Content, aside.Messages[i].Content, "message %d", i)
			}
			assert.Len(t, aside.Messages, len(next.Messages), "the question joined the last message (the client joins a user message to a tool result)")
			for _, m := range out.Messages {
				assert.NotContains(t, m.Content, "Which files matter?", "the side question stays out of the history")
			}
			var st llm.State
			_, err = st.Aside(t.Context(), "x")
			assert.ErrorIs(t, err, llm.ErrNoAside)
		})
	}
}
