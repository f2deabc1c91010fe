package llm_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// wireContent is a request message's content as sent: a string, or parts.
type wireContent struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

func sentMessages(t *testing.T, r llmtest.Request) []wireContent {
	t.Helper()
	var body struct {
		Messages []wireContent `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &body))
	return body.Messages
}

// A role whose config asks for cache marks sends the system prompt and the
// two newest user or tool messages as text parts with an ephemeral
// cache_control breakpoint; the text is unchanged, and the other roles send
// plain strings.
func TestCacheMarksOnTheStablePrefix(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("one"), llmtest.Reply("two")})
	c, _ := newClient(t, srv, func(cfg *llm.Config) {
		cfg.Roles = map[llm.Role]llm.RoleConfig{llm.RoleExplorer: {CacheMarks: true}}
	})
	msgs := []llm.Message{
		{Role: llm.System, Content: "You are the explorer."},
		{Role: llm.User, Content: "The issue."},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}}},
		{Role: llm.ToolRole, ToolCallID: "c1", Content: "package a"},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "c2", Name: "read_file", Arguments: `{"path":"b.go"}`}}},
		{Role: llm.ToolRole, ToolCallID: "c2", Content: "package b"},
	}
	_, err := c.Chat(t.Context(), llm.Request{Role: llm.RoleExplorer, Messages: msgs})
	require.NoError(t, err)
	_, err = c.Chat(t.Context(), llm.Request{Role: llm.RolePlanner, Messages: msgs})
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)

	marked := sentMessages(t, reqs[0])
	require.Len(t, marked, 6)
	for i, want := range []string{"You are the explorer.", "", "", "package a", "", "package b"} {
		if want == "" {
			var s string
			if marked[i].Role != llm.Assistant {
				require.NoError(t, json.Unmarshal(marked[i].Content, &s), "message %d stays a string", i)
			}
			continue
		}
		var parts []struct {
			Type         string          `json:"type"`
			Text         string          `json:"text"`
			CacheControl json.RawMessage `json:"cache_control"`
		}
		require.NoError(t, json.Unmarshal(marked[i].Content, &parts), "message %d: %s", i, marked[i].Content)
		require.Len(t, parts, 1)
		require.Equal(t, "text", parts[0].Type)
		require.Equal(t, want, parts[0].Text)
		require.JSONEq(t, `{"type":"ephemeral"}`, string(parts[0].CacheControl))
	}
	// The user message between them is neither the system prompt nor one of
	// the two newest: Anthropic allows four breakpoints.
	var s string
	require.NoError(t, json.Unmarshal(marked[1].Content, &s))
	require.Equal(t, "The issue.", s)

	for i, m := range sentMessages(t, reqs[1]) {
		if m.Role == llm.Assistant {
			continue
		}
		require.NoError(t, json.Unmarshal(m.Content, &s), "planner message %d is marked: %s", i, m.Content)
	}
}
