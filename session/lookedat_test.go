package session_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/session"
)

func TestLookedAt(t *testing.T) {
	t.Parallel()
	tool := func(name, args string) session.Event {
		return session.Event{Kind: session.KindTool, Payload: session.Payload{Tool: &session.ToolCall{Name: name, Args: args}}}
	}
	events := []session.Event{
		tool("read_file", `{"path":"server/handler.go","start":1}`),
		tool("read_file", `{"path":"server/handler.go","start":80}`), // the same file once
		tool("preview_file", `{"path":"README.md"}`),
		tool("grep", `{"pattern":"ErrEmpty"}`),
		tool("search", `{"query":"empty input crash"}`),
		tool("list_dir", `{"path":"server"}`),
		{Kind: session.KindModel, Payload: session.Payload{Model: &session.ModelCall{Text: "SECRET PROMPT TALK"}}},
		{Kind: session.KindCheck, Payload: session.Payload{Check: &session.Check{Name: "go vet", Command: "go vet ./server", OK: false}}},
		{Kind: session.KindCheck, Payload: session.Payload{Check: &session.Check{Name: "go build", OK: true}}},
	}
	got := session.LookedAt(events, map[string]string{"server/handler.go": "drops the error on empty input; fixes #3 @alice"})
	want := "<details><summary>What I looked at</summary>\n\n" +
		"**Files read** (2)\n\n- `server/handler.go` — drops the error on empty input; f&#8203;ixes #3 @&#8203;alice\n- `README.md`\n\n" +
		"**Searches** (2)\n\n- grep `ErrEmpty`\n- search `empty input crash`\n\n" +
		"**Commands and checks** (2)\n\n- ❌ go vet (`go vet ./server`)\n- ✅ go build\n\n</details>\n"
	require.Equal(t, want, got)
	require.NotContains(t, got, "SECRET PROMPT")
	require.Empty(t, session.LookedAt(events[6:7], nil))

	var many []session.Event
	for i := range 2000 {
		many = append(many, tool("read_file", fmt.Sprintf(`{"path":"pkg/file_%04d.go"}`, i)))
	}
	big := session.LookedAt(many, nil)
	require.LessOrEqual(t, len(big), session.MaxLookedAt)
	require.True(t, strings.Contains(big, "more\n"), "what did not fit is counted")
}

func TestLink(t *testing.T) {
	t.Parallel()
	require.Equal(t, "https://bot.example/sessions/12", session.Link("https://bot.example/", 12))
	require.Empty(t, session.Link("", 12))
	require.Empty(t, session.Link("https://bot.example", 0))
}
