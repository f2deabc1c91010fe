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

func TestTextProtocolThroughTheSameLoop(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, "testdata/text_protocol.yaml"))
	// The protocol is chosen per model in config; the Agent leaves it empty.
	c, _ := newClient(t, srv, func(cfg *llm.Config) {
		cfg.Model = "old-model"
		cfg.Protocols = map[string]llm.Protocol{"old-model": llm.ProtocolText}
	})
	type openP struct {
		Path string `json:"path"`
	}
	type grepP struct {
		Pattern string `json:"pattern"`
		Glob    string `json:"glob,omitempty"`
	}
	type submitP struct {
		Summary string `json:"summary"`
	}
	var opened, summary string
	var grep grepP
	tools := []llm.Tool{
		llm.NewTool("open", "Open a file.", func(_ context.Context, p openP) (llm.ToolResult, error) {
			opened = p.Path
			return llm.ToolResult{Content: "package config"}, nil
		}),
		llm.NewTool("grep", "Search.", func(_ context.Context, p grepP) (llm.ToolResult, error) {
			grep = p
			return llm.ToolResult{Content: "config/load.go:12: func Load()"}, nil
		}),
		llm.NewTool("submit", "Finish.", func(_ context.Context, p submitP) (llm.ToolResult, error) {
			summary = p.Summary
			return llm.ToolResult{Content: "ok", Stop: true}, nil
		}),
	}
	a := &llm.Agent{Role: llm.RoleExplorer, Model: c, Tools: tools}
	out, err := a.Run(t.Context(), userMsg("Find the config loader"))
	require.NoError(t, err)
	assert.Equal(t, llm.StopFinished, out.Reason)
	assert.Equal(t, "config/load.go", opened)
	assert.Equal(t, grepP{Pattern: "func Load", Glob: "*.go"}, grep)
	assert.Equal(t, "The loader ignores\nthe ISSUESMITH_ prefix.", summary)
	for _, r := range srv.Requests() {
		assert.Empty(t, r.Tools, "no tool list is sent in text mode")
	}
	assert.Len(t, out.Steps, 3)
	assert.Equal(t, llm.ToolCall{ID: "text_1", Name: "open", Arguments: `{"path":"config/load.go"}`}, out.Steps[0].Calls[0],
		"steps record the arguments the tool received")
}

func TestTextProtocolUnknownActionAndFinalAnswer(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("delete=>everything"),
		llmtest.Reply("Nothing more to do.").When(llmtest.Expect{Last: `error: unknown tool "delete"`}),
	})
	c, _ := newClient(t, srv)
	a := &llm.Agent{Model: c, Protocol: llm.ProtocolText, Tools: []llm.Tool{
		llm.NewTool("open", "Open.", func(context.Context, struct {
			Path string `json:"path"`
		}) (llm.ToolResult, error) {
			return llm.ToolResult{}, nil
		}),
	}}
	out, err := a.Run(t.Context(), []llm.Message{{Role: llm.System, Content: "You are careful."}, {Role: llm.User, Content: "go"}})
	require.NoError(t, err)
	assert.Equal(t, llm.StopFinished, out.Reason)
	assert.Equal(t, "Nothing more to do.", out.Final.Content)
	first := srv.Requests()[0].Messages
	require.Len(t, first, 2, "the protocol joins the existing system message")
	assert.True(t, strings.HasPrefix(first[0].Content, "You are careful.\n\nYou act by writing"))
	assert.Contains(t, first[0].Content, "- open=><path>: Open.")
	assert.Equal(t, "You are careful.", out.Messages[0].Content, "the run's own history is unchanged")
}

func TestTextProtocolArrowFunctionsInAnswerAreText(t *testing.T) {
	t.Parallel()
	answer := "Use a map:\nids := items.map(item=>item.id)\nitem=>item.id is fine."
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply(answer)})
	c, _ := newClient(t, srv)
	a := &llm.Agent{Model: c, Protocol: llm.ProtocolText}
	out, err := a.Run(t.Context(), userMsg("how?"))
	require.NoError(t, err)
	assert.Equal(t, llm.StopFinished, out.Reason)
	assert.Equal(t, answer, out.Final.Content)
	assert.Empty(t, out.Steps[0].Calls)
}

func TestTextProtocolOneActionPerReply(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("open=>a.go\nopen=>b.go\nopen=>{\"path\": \"c.go\"}"),
		llmtest.Reply("open=>{\"path\":\n \"d.go\"} open=>e.go").When(llmtest.Expect{Last: "2 more ignored"}),
		llmtest.Reply("done").When(llmtest.Expect{Last: "[result of open]\nd.go"}),
	})
	c, _ := newClient(t, srv)
	var opened []string
	a := &llm.Agent{Model: c, Protocol: llm.ProtocolText, Tools: []llm.Tool{
		llm.NewTool("open", "Open.", func(_ context.Context, p struct {
			Path string `json:"path"`
		}) (llm.ToolResult, error) {
			opened = append(opened, p.Path)
			return llm.ToolResult{Content: p.Path}, nil
		}),
	}}
	out, err := a.Run(t.Context(), userMsg("go"))
	require.NoError(t, err)
	assert.Equal(t, []string{"a.go", "d.go"}, opened)
	assert.Equal(t, "[result of open]\nd.go", out.Messages[len(out.Messages)-2].Content, "nothing ignored on the same line")
}

// A model without tool calling writes the JSON by hand: the action list
// shows the keys of objects nested in arrays, and the hinted shape is one
// the tool decodes.
func TestTextProtocolHintShowsNestedKeys(t *testing.T) {
	t.Parallel()
	type file struct {
		Path   string `json:"path"`
		Action string `json:"action"`
	}
	type submitP struct {
		Topic string   `json:"topic"`
		Files []file   `json:"files"`
		Notes []string `json:"notes,omitempty"`
	}
	var got submitP
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply(`submit=>{"files": [{"action": "modify", "path": "a.go"}], "notes": ["n"], "topic": "t"}`),
	})
	c, _ := newClient(t, srv)
	a := &llm.Agent{Model: c, Protocol: llm.ProtocolText, Tools: []llm.Tool{
		llm.NewTool("submit", "Submit.", func(_ context.Context, p submitP) (llm.ToolResult, error) {
			got = p
			return llm.ToolResult{Content: "ok", Stop: true}, nil
		}),
	}}
	_, err := a.Run(t.Context(), userMsg("go"))
	require.NoError(t, err)
	assert.Contains(t, srv.Requests()[0].Messages[0].Content,
		`- submit=>{"files": [{"action": <string>, "path": <string>}, …], "notes": [<string>, …], "topic": <string>}: Submit.`)
	assert.Equal(t, submitP{Topic: "t", Files: []file{{Path: "a.go", Action: "modify"}}, Notes: []string{"n"}}, got)
}

// A plain argument fills the only string parameter even when it is
// optional: "list=>src" lists src, it does not drop the argument.
func TestTextProtocolPlainArgumentFillsOptionalString(t *testing.T) {
	t.Parallel()
	type listP struct {
		Path  string `json:"path,omitempty"`
		Depth int    `json:"depth,omitempty"`
	}
	var got []listP
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("Look at src.\nlist=>src/data"),
		llmtest.Reply("done"),
	})
	c, _ := newClient(t, srv)
	a := &llm.Agent{Model: c, Protocol: llm.ProtocolText, Tools: []llm.Tool{
		llm.NewTool("list", "List.", func(_ context.Context, p listP) (llm.ToolResult, error) {
			got = append(got, p)
			return llm.ToolResult{Content: "a.go"}, nil
		}),
	}}
	_, err := a.Run(t.Context(), userMsg("go"))
	require.NoError(t, err)
	assert.Equal(t, []listP{{Path: "src/data"}}, got)
}

// A JSON object written on the lines under the action line (bare or in a
// ```json fence) is the arguments, as on the action line itself; other
// multi-line text still fills the main parameter.
func TestTextProtocolJSONUnderTheActionLine(t *testing.T) {
	t.Parallel()
	type submitP struct {
		Topic string   `json:"topic"`
		Files []string `json:"files,omitempty"`
	}
	var got []submitP
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("Done exploring.\nsubmit=>\n{\"topic\": \"t\",\n \"files\": [\"a.go\"]}"),
		llmtest.Reply("submit=>\n```json\n{\"topic\": \"u\", \"files\": []}\n```"),
		llmtest.Reply("submit=>\nplain {text}\nover lines"),
		llmtest.Reply("done"),
	})
	c, _ := newClient(t, srv)
	a := &llm.Agent{Model: c, Protocol: llm.ProtocolText, Tools: []llm.Tool{
		llm.NewTool("submit", "Submit.", func(_ context.Context, p submitP) (llm.ToolResult, error) {
			got = append(got, p)
			return llm.ToolResult{Content: "ok"}, nil
		}),
	}}
	_, err := a.Run(t.Context(), userMsg("go"))
	require.NoError(t, err)
	assert.Equal(t, []submitP{{Topic: "t", Files: []string{"a.go"}}, {Topic: "u", Files: []string{}}, {Topic: "plain {text}\nover lines"}}, got)
}

func TestTextProtocolInstructionsHaveAWorkedExample(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("done")})
	c, _ := newClient(t, srv)
	type grepParams struct {
		Pattern string `json:"pattern"`
		Limit   int    `json:"limit,omitempty"`
	}
	grep := llm.NewTool("grep", "Search.", func(context.Context, grepParams) (llm.ToolResult, error) { return llm.ToolResult{}, nil })
	a := &llm.Agent{Model: c, Protocol: llm.ProtocolText, Tools: []llm.Tool{readTool(nil, &calls), grep}}
	_, err := a.Run(t.Context(), userMsg("go"))
	require.NoError(t, err)
	sys := srv.Requests()[0].Messages[0].Content
	assert.Contains(t, sys, "Example of a correct reply")
	assert.Contains(t, sys, "\nread_file=>src/app.go\n")
	assert.Contains(t, sys, "\ngrep=>{\"limit\": 1, \"pattern\": \"func main\"}\n")
}
