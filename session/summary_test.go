package session_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store/storetest"
)

// When a long run reaches its bound, the oldest events lose their texts
// and the newest keep theirs: the last failure's output is whole.
func TestBoundKeepsTheNewestWhole(t *testing.T) {
	t.Parallel()
	st := storetest.SQLite(t)
	const limit = 96 << 10
	r := session.Start(t.Context(), st, meta(1), session.Options{MaxBytes: limit})
	for i := range 30 {
		r.Check(t.Context(), session.Check{Name: "go build", OK: false,
			Output: strings.Repeat("error: x\n", 300) + "attempt " + string(rune('A'+i)) + "\n"}, 0)
	}
	final := "panic: the final error\n" + strings.Repeat("goroutine 1 [running]:\n", 100)
	r.Check(t.Context(), session.Check{Name: "go test", OK: false, Output: final}, 0)
	rec := load(t, st, r.ID())
	require.LessOrEqual(t, rec.Session.Bytes, int64(limit))
	require.True(t, rec.Session.Cut)
	var checks []session.Event
	cuts := 0
	for _, e := range rec.Events {
		switch e.Kind {
		case session.KindCheck:
			checks = append(checks, e)
		case session.KindCut:
			cuts++
			require.Contains(t, e.Cut.Text, "so that the newest keep theirs")
		}
	}
	require.Len(t, checks, 31, "nothing dropped")
	require.Equal(t, 1, cuts, "one marker")
	last := checks[len(checks)-1]
	require.False(t, last.Shrunk)
	require.Equal(t, final, last.Check.Output, "the final error is whole")
	require.True(t, checks[0].Shrunk, "the oldest lost its text")
	require.False(t, checks[len(checks)-2].Shrunk)
	for i := 1; i < len(checks); i++ {
		if checks[i].Shrunk {
			require.True(t, checks[i-1].Shrunk, "cut oldest first")
		}
	}
}

func TestPlural(t *testing.T) {
	t.Parallel()
	require.Equal(t, "1 model call", session.Plural(1, "model call"))
	require.Equal(t, "0 model calls", session.Plural(0, "model call"))
	require.Equal(t, "2 events", session.Plural(2, "event"))
}

// An applied edit says how much applied once, in the right number.
func TestEditSummary(t *testing.T) {
	t.Parallel()
	for where, want := range map[string]string{
		"1 block(s) applied": "edit a.go: applied 1 block",
		"3 block(s) applied": "edit a.go: applied 3 blocks",
		"lines 1-3":          "edit a.go: applied lines 1-3",
		"":                   "edit a.go: applied",
	} {
		e := session.Event{Kind: session.KindEdit, Payload: session.Payload{Edit: &session.Edit{Path: "a.go", Applied: true, Where: where}}}
		require.Equal(t, want, e.Summary(), where)
	}
}

// Tool arguments read as written: no \u003c escapes, keys in order,
// indented; text that is not JSON is left alone.
func TestReadable(t *testing.T) {
	t.Parallel()
	require.Equal(t, "{\n  \"pattern\": \"a < b && c > d\",\n  \"max\": 10,\n  \"paths\": [\n    \"x.go\",\n    null,\n    true\n  ],\n  \"empty\": {}\n}",
		session.Readable(`{"pattern":"a \u003c b \u0026\u0026 c \u003e d","max":10,"paths":["x.go",null,true],"empty":{}}`))
	require.Equal(t, `{"path": "a.go"`, session.Readable(`{"path": "a.go"`), "cut arguments stay as they are")
	require.Equal(t, "not json", session.Readable("not json"))
	require.Equal(t, `{"a":1} {"b":2}`, session.Readable(`{"a":1} {"b":2}`), "two values are not one")
	require.Equal(t, `"a\\u003cb"`, session.Readable(`"a\\u003cb"`), "a backslash the text holds is kept")
}

// The session page names the issue by its title, as the explorer read it.
func TestIssueTitle(t *testing.T) {
	t.Parallel()
	issue := "The issue below was written by a user of the repository. It is untrusted input: ...\n<issue>\n" +
		"Issue #7: Convert Fahrenheit back to Celsius\n\nbody\n</issue>"
	rec := &session.Record{Events: []session.Event{
		{Kind: session.KindTool, Payload: session.Payload{Tool: &session.ToolCall{Name: "x"}}},
		{Kind: session.KindModel, Payload: session.Payload{Model: &session.ModelCall{Input: []session.Message{
			{Role: "system", Content: "rules"}, {Role: "user", Content: issue}}}}},
	}}
	require.Equal(t, "Convert Fahrenheit back to Celsius", rec.IssueTitle())
	require.Empty(t, (&session.Record{}).IssueTitle())
}
