package session_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
	"github.com/issuesmith/issuesmith/store/storetest"
)

type readArgs struct {
	Path string `json:"path"`
}

// readTool answers with a long file body that carries a token.
func readTool(body string) llm.Tool {
	return llm.NewTool("read_file", "Read a file.", func(_ context.Context, a readArgs) (llm.ToolResult, error) {
		return llm.ToolResult{Content: a.Path + ":\n" + body}, nil
	})
}

func meta(run int64) store.Session {
	return store.Session{InstallationID: 42, RunID: run, Owner: "acme", Repo: "web", Issue: 7, Requester: "alice"}
}

func load(t *testing.T, st *store.Store, id int64) *session.Record {
	t.Helper()
	rec, err := session.Load(t.Context(), st, id)
	require.NoError(t, err)
	return rec
}

// An agent run through the decorators records each model call (usage,
// reply, tool calls, only the new messages), each tool call, and the
// system prompt and tool schemas once; every text is redacted.
func TestAgentRunIsRecorded(t *testing.T) {
	t.Parallel()
	const token = "ghs_0123456789abcdefABCDEF0123456789ab"
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Call("read_file", `{"path":"main.go"}`).WithUsage(1000, 20, 600),
		llmtest.Call("read_file", `{"path":"go.mod"}`).WithUsage(1200, 25, 900),
		llmtest.Reply("done: the bug is in main.go").WithUsage(1400, 10, 1100),
	})
	cfg := srv.Config()
	cfg.Prices = map[string]llm.Price{"test": {Prompt: 1, Completion: 2}}
	client, err := llm.NewClient(cfg)
	require.NoError(t, err)
	st := storetest.SQLite(t)
	r := session.Start(t.Context(), st, meta(1), session.Options{Secrets: []string{"hunter2-secret"}})
	require.NotNil(t, r)
	r.Begin(t.Context(), session.StageExplore, "explore")
	agent := &llm.Agent{Role: llm.RoleExplorer, Model: r.Model(client),
		Tools: r.Tools([]llm.Tool{readTool("token " + token + " and hunter2-secret")})}
	out, err := agent.Run(t.Context(), []llm.Message{
		{Role: llm.System, Content: "You are the explorer."},
		{Role: llm.User, Content: "Find the bug."},
	})
	require.NoError(t, err)
	require.Equal(t, llm.StopFinished, out.Reason)
	r.Finish(t.Context())

	rec := load(t, st, r.ID())
	var kinds []session.Kind
	for _, e := range rec.Events {
		kinds = append(kinds, e.Kind)
		require.Equal(t, session.StageExplore, e.Stage)
		require.Equal(t, "explore", e.Step)
	}
	require.Equal(t, []session.Kind{"model", "tool", "model", "tool", "model"}, kinds)
	first, second, last := rec.Events[0].Model, rec.Events[2].Model, rec.Events[4].Model
	require.Equal(t, llm.RoleExplorer, first.Role)
	require.Equal(t, 1000, first.PromptTokens)
	require.Equal(t, 600, first.CachedTokens)
	require.Equal(t, 20, first.CompletionTokens)
	require.Equal(t, "read_file", first.ToolCalls[0].Name)
	require.Equal(t, []session.Message{{Role: llm.User, Content: "Find the bug.", Bytes: 13}}, first.Input)
	// The second call stores only what is new: the tool result, not the
	// system prompt, the task or the previous reply.
	require.Len(t, second.Input, 1)
	require.Equal(t, llm.ToolRole, second.Input[0].Role)
	require.Equal(t, "done: the bug is in main.go", last.Text)
	require.Equal(t, first.System, last.System)
	require.Len(t, rec.Blobs, 2, "one system prompt and one tool schema set")
	require.Equal(t, "You are the explorer.", rec.Blobs[first.System].Body)
	require.Contains(t, rec.Blobs[first.Tools].Body, "read_file")

	tool := rec.Events[1].Tool
	require.Equal(t, "read_file", tool.Name)
	require.JSONEq(t, `{"path":"main.go"}`, tool.Args)
	require.Contains(t, tool.Result, "main.go:")
	require.NotContains(t, tool.Result, token)
	require.NotContains(t, tool.Result, "hunter2-secret")
	require.Contains(t, tool.Result, "[redacted]")

	require.Equal(t, int64(3), rec.Session.ModelCalls)
	require.Equal(t, int64(3600), rec.Session.PromptTokens)
	require.Equal(t, int64(55), rec.Session.CompletionTokens)
	require.InDelta(t, out.Cost, rec.Session.Cost, 1e-12)
	require.Greater(t, out.Cost, 0.0)
}

// A compressed history is stored whole, marked rewritten.
func TestRewrittenHistory(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("a"), llmtest.Reply("b")})
	client, err := llm.NewClient(srv.Config())
	require.NoError(t, err)
	st := storetest.SQLite(t)
	r := session.Start(t.Context(), st, meta(1), session.Options{})
	m := r.Model(client)
	msgs := []llm.Message{{Role: llm.System, Content: "sys"}, {Role: llm.User, Content: "task"},
		{Role: llm.Assistant, Content: "x"}, {Role: llm.User, Content: "long history"}}
	_, err = m.Chat(t.Context(), llm.Request{Role: llm.RoleExplorer, Messages: msgs})
	require.NoError(t, err)
	_, err = m.Chat(t.Context(), llm.Request{Role: llm.RoleExplorer,
		Messages: append(msgs[:2:2], llm.Message{Role: llm.User, Content: "record: compressed"})})
	require.NoError(t, err)
	rec := load(t, st, r.ID())
	second := rec.Events[1].Model
	require.True(t, second.Rewritten)
	require.Len(t, second.Input, 2)
	require.Equal(t, "record: compressed", second.Input[1].Content)
}

// Over its bound, a session shrinks the oldest tool results first, marks
// the cut, and never exceeds the bound; the run is not disturbed.
func TestBoundShrinksOldestToolResultsFirst(t *testing.T) {
	t.Parallel()
	st := storetest.SQLite(t)
	const limit = 200 << 10
	r := session.Start(t.Context(), st, meta(1), session.Options{MaxBytes: limit})
	tool := r.Tool(readTool(strings.Repeat("line of code\n", 1000))) // ~13 KB per result
	for i := range 40 {
		args, _ := json.Marshal(readArgs{Path: "f" + string(rune('a'+i%26)) + ".go"})
		_, err := tool.Call(t.Context(), args)
		require.NoError(t, err)
		r.Edit(t.Context(), session.Edit{Path: "main.go", Applied: true, Where: "lines 1-3", Diff: strings.Repeat("+x\n", 300)})
	}
	rec := load(t, st, r.ID())
	require.LessOrEqual(t, rec.Session.Bytes, int64(limit))
	require.True(t, rec.Session.Cut)
	var sum int64
	raw, err := st.SessionEvents(t.Context(), r.ID(), 0, 0)
	require.NoError(t, err)
	for _, ev := range raw {
		sum += int64(len(ev.Body))
	}
	require.Equal(t, sum, rec.Session.Bytes, "the running size is the stored size")
	// The oldest tool results were shrunk, the newest kept whole; edits
	// were not touched.
	var tools []session.Event
	for _, e := range rec.Events {
		if e.Kind == session.KindTool {
			tools = append(tools, e)
		}
		if e.Kind == session.KindEdit {
			require.False(t, e.Shrunk)
			require.NotEmpty(t, e.Edit.Diff)
		}
	}
	require.Len(t, tools, 40, "nothing dropped: shrinking made room")
	require.True(t, tools[0].Shrunk)
	require.Contains(t, tools[0].Tool.Result, "[cut to keep the session bounded")
	require.False(t, tools[39].Shrunk)
	require.Greater(t, len(tools[39].Tool.Result), 10000)
	shrunk := 0
	for i, e := range tools {
		if e.Shrunk {
			require.Equal(t, i, shrunk, "shrunk in order, oldest first")
			shrunk++
		}
	}
}

// When nothing is left to shrink, events are stored without their texts,
// then dropped, each time marked; the bound holds.
func TestBoundCompactsThenDrops(t *testing.T) {
	t.Parallel()
	st := storetest.SQLite(t)
	const limit = 64 << 10
	r := session.Start(t.Context(), st, meta(1), session.Options{MaxBytes: limit})
	for range 400 {
		r.Check(t.Context(), session.Check{Name: "go build", OK: false, Output: strings.Repeat("error: x\n", 800)}, 0)
	}
	rec := load(t, st, r.ID())
	require.LessOrEqual(t, rec.Session.Bytes, int64(limit))
	var cuts []string
	compacted := 0
	for _, e := range rec.Events {
		if e.Kind == session.KindCut {
			cuts = append(cuts, e.Cut.Text)
		}
		if e.Shrunk {
			compacted++
			require.LessOrEqual(t, len(e.Check.Output), 220)
		}
	}
	require.Len(t, cuts, 2)
	require.Contains(t, cuts[0], "bound")
	require.Contains(t, cuts[1], "full")
	require.Greater(t, compacted, 0)
	require.Less(t, len(rec.Events), 400)
}

// A resumed job appends after the events stored, and a step that had
// finished records nothing when it runs again; an unfinished step's
// re-run is a new attempt.
func TestResumeNeverRepeatsAFinishedStep(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) { testResume(t, storetest.SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { testResume(t, storetest.StartPostgres(t).Open(t)) })
}

func testResume(t *testing.T, st *store.Store) {
	ctx := t.Context()
	r := session.Start(ctx, st, meta(9), session.Options{})
	r.Begin(ctx, session.StageExplore, "explore")
	r.Observer(ctx, "look at the handler")
	r.Finish(ctx)
	r.Begin(ctx, session.StagePlan, "plan")
	r.Observer(ctx, "first attempt")
	// crash: the plan step never finished

	r2 := session.Start(ctx, st, meta(9), session.Options{})
	require.Equal(t, r.ID(), r2.ID())
	r2.Begin(ctx, session.StageExplore, "explore")
	r2.Observer(ctx, "look at the handler")
	r2.Finish(ctx)
	r2.Begin(ctx, session.StagePlan, "plan")
	r2.Observer(ctx, "second attempt")
	r2.Finish(ctx)
	r2.End(ctx, store.StateDone)

	rec := load(t, st, r.ID())
	var got []string
	for _, e := range rec.Events {
		got = append(got, e.Step+"#"+string(rune('0'+e.Attempt))+": "+e.Observer.Text)
	}
	require.Equal(t, []string{"explore#1: look at the handler", "plan#1: first attempt", "plan#2: second attempt"}, got)
	require.Equal(t, store.StateDone, rec.Session.State)
	require.False(t, rec.Session.Running())
}

// failingSink fails every write, as a database gone away does.
type failingSink struct{ *store.Store }

var errDown = errors.New("database is down")

func (failingSink) AppendSessionEvent(context.Context, *store.SessionEvent, store.SessionDelta) (bool, error) {
	return false, errDown
}

// A failing store never fails the run: the model's answer comes through,
// one log line is written and every failure is counted.
func TestFailingStoreNeverFailsTheRun(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("a"), llmtest.Reply("b")})
	client, err := llm.NewClient(srv.Config())
	require.NoError(t, err)
	var logs bytes.Buffer
	failures := 0
	r := session.Start(t.Context(), failingSink{storetest.SQLite(t)}, meta(1), session.Options{
		Logger: slogTo(&logs), OnError: func(error) { failures++ }})
	require.NotNil(t, r)
	m := r.Model(client)
	for range 2 {
		resp, err := m.Chat(t.Context(), llm.Request{Role: llm.RolePlanner, Messages: []llm.Message{{Role: llm.User, Content: "x"}}})
		require.NoError(t, err)
		require.NotEmpty(t, resp.Message.Content)
	}
	require.Equal(t, 2, failures)
	require.Equal(t, 1, strings.Count(logs.String(), "recording failed"))
	// A nil recorder (the store was down at the start) records nothing.
	var none *session.Recorder
	none.Begin(t.Context(), "x", "y")
	none.Edit(t.Context(), session.Edit{})
	require.Equal(t, client, none.Model(client))
}

// The JSON-lines file holds the session, its events and blobs, and the end.
func TestFileSink(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	r := session.Start(t.Context(), session.NewFile(&buf), meta(0), session.Options{})
	r.Begin(t.Context(), session.StageCode, "code")
	r.Check(t.Context(), session.Check{Name: "go vet", OK: true, Output: "ok"}, 0)
	r.Commit(t.Context(), session.Commit{SHA: "abc123", Branch: "issuesmith/7", Message: "fix"})
	r.Finish(t.Context())
	r.Begin(t.Context(), session.StageCode, "code")
	r.Check(t.Context(), session.Check{Name: "go vet", OK: true}, 0) // finished step: dropped
	r.End(t.Context(), store.StateDone)
	var lines []session.Line
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		var l session.Line
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l))
		lines = append(lines, l)
	}
	require.Len(t, lines, 4)
	require.Equal(t, "acme", lines[0].Session.Owner)
	require.Equal(t, "go vet", lines[1].Event.Check.Name)
	require.Equal(t, "abc123", lines[2].Event.Commit.SHA)
	require.Equal(t, store.StateDone, lines[3].End)
}

func slogTo(w *bytes.Buffer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// protocolModel chooses the text protocol for every role.
type protocolModel struct{ llm.Model }

func (protocolModel) Protocol(llm.Role) llm.Protocol { return llm.ProtocolText }

// A recorded model keeps the protocol its model chooses: the agent loop
// asks the outermost model.
func TestRecordedModelKeepsTheProtocolChoice(t *testing.T) {
	var r *session.Recorder
	for _, m := range []llm.Model{session.WrapModel(protocolModel{}), session.Start(t.Context(), storetest.SQLite(t), meta(1), session.Options{}).Model(protocolModel{})} {
		pc, ok := m.(llm.ProtocolChooser)
		require.True(t, ok)
		require.Equal(t, llm.ProtocolText, pc.Protocol(llm.RoleCoder))
	}
	require.Equal(t, protocolModel{}, r.Model(protocolModel{}), "a nil recorder wraps nothing")
}
