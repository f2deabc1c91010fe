package llm_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// A chat template without a tool role (Gemma 3's; the Mistral Small and
// Devstral GGUFs' without tools) refuses a history of tool calls and
// results (found through llama.cpp's real templates): the client learns it
// from the refusal and sends each call as fenced JSON in its assistant
// message and each result as the user's message, from then on.
func TestToolTurnsSentAsTextToTemplatesWithoutToolRoles(t *testing.T) {
	t.Parallel()
	refusal := llmtest.Fault{Status: 500, Message: "Unable to generate parser for this template. Automatic parser generation failed: " +
		"Jinja Exception: Conversation roles must alternate user/assistant/user/assistant/...", Unless: "[result of read_file]"}
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("ok").After(refusal), llmtest.Reply("ok again")}, llmtest.WithAlternation())
	c, _ := newClient(t, srv)
	msgs := []llm.Message{
		{Role: llm.System, Content: "You explore."},
		{Role: llm.User, Content: "issue"},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "callAAAA1", Name: "read_file", Arguments: `{"path":"a.go"}`}}},
		{Role: llm.ToolRole, ToolCallID: "callAAAA1", Name: "read_file", Content: "package a"},
		{Role: llm.User, Content: "Observer: look at b.go."},
	}
	for range 2 {
		_, err := c.Chat(t.Context(), llm.Request{Messages: msgs})
		require.NoError(t, err)
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 3, "refused once, then the history as text at once")
	for _, req := range reqs[1:] {
		require.Len(t, req.Messages, 4)
		assert.Equal(t, []string{"system", "user", "assistant", "user"},
			[]string{req.Messages[0].Role, req.Messages[1].Role, req.Messages[2].Role, req.Messages[3].Role})
		assert.Empty(t, req.Messages[2].ToolCalls)
		assert.Equal(t, "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\":\"a.go\"}}\n```", req.Messages[2].Content)
		assert.Equal(t, "[result of read_file]\npackage a\n\nObserver: look at b.go.", req.Messages[3].Content)
	}
	assert.Len(t, msgs[2].ToolCalls, 1, "the caller's messages are not modified")
}

// Llama 3.x's template refuses an assistant message with several calls
// (found through llama.cpp's real template): the client learns it from the
// refusal and sends such a turn as one assistant message per call, each
// followed by its result, from then on.
func TestSeveralCallsSentOneByOneToSingleCallTemplates(t *testing.T) {
	t.Parallel()
	refusal := llmtest.Fault{Status: 500, Message: "Unable to generate parser for this template. Automatic parser generation failed: " +
		"Jinja Exception: This model only supports single tool-calls at once!",
		Unless: `"tool_call_id":"callAAAA1"},{"role":"assistant"`}
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("ok").After(refusal), llmtest.Reply("ok again")})
	c, _ := newClient(t, srv)
	msgs := []llm.Message{
		{Role: llm.User, Content: "issue"},
		{Role: llm.Assistant, Content: "Reading both.", ToolCalls: []llm.ToolCall{
			{ID: "callAAAA1", Name: "read_file", Arguments: `{"path":"a.go"}`}, {ID: "callAAAA2", Name: "read_file", Arguments: `{"path":"b.go"}`}}},
		{Role: llm.ToolRole, ToolCallID: "callAAAA1", Content: "package a"},
		{Role: llm.ToolRole, ToolCallID: "callAAAA2", Content: "package b"},
	}
	for range 2 {
		resp, err := c.Chat(t.Context(), llm.Request{Messages: msgs})
		require.NoError(t, err)
		assert.Contains(t, resp.Message.Content, "ok")
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 3, "refused once, then the split history at once")
	for _, req := range reqs[1:] {
		var shape []string
		for _, m := range req.Messages {
			shape = append(shape, fmt.Sprintf("%s:%d", m.Role, len(m.ToolCalls)))
		}
		assert.Equal(t, []string{"user:0", "assistant:1", "tool:0", "assistant:1", "tool:0"}, shape)
		assert.Equal(t, "Reading both.", req.Messages[1].Content, "the text stays with the first call")
		assert.Equal(t, "package b", req.Messages[4].Content)
	}
	assert.Len(t, msgs[1].ToolCalls, 2, "the caller's messages are not modified")
}

// gpt-oss's template renders only a turn's first call and raises nothing:
// a gpt-oss model gets one call per turn from the start.
func TestSeveralCallsSentOneByOneToGptOss(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("ok")})
	c, _ := newClient(t, srv, func(cfg *llm.Config) { cfg.Model = "openai/gpt-oss-20b" })
	_, err := c.Chat(t.Context(), llm.Request{Messages: []llm.Message{
		{Role: llm.User, Content: "issue"},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{
			{ID: "callAAAA1", Name: "read_file", Arguments: `{"path":"a.go"}`}, {ID: "callAAAA2", Name: "list_dir", Arguments: `{"path":"."}`}}},
		{Role: llm.ToolRole, ToolCallID: "callAAAA1", Content: "package a"},
		{Role: llm.ToolRole, ToolCallID: "callAAAA2", Content: "a.go"},
	}})
	require.NoError(t, err)
	var shape []string
	for _, m := range srv.Requests()[0].Messages {
		shape = append(shape, fmt.Sprintf("%s:%d", m.Role, len(m.ToolCalls)))
	}
	assert.Equal(t, []string{"user:0", "assistant:1", "tool:0", "assistant:1", "tool:0"}, shape)
}
