package llm_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// windowParams has typed parameters, for coercion.
type windowParams struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"`
	All    bool   `json:"all,omitempty"`
}

// recordTool records every call's decoded arguments.
func recordTool(got *[]windowParams) llm.Tool {
	return llm.NewTool("read_file", "Read a file.", func(_ context.Context, p windowParams) (llm.ToolResult, error) {
		*got = append(*got, p)
		return llm.ToolResult{Content: "contents of " + p.Path}, nil
	})
}

func runAgent(t *testing.T, script llmtest.Script, opts ...llmtest.Option) (*llm.Outcome, []windowParams, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, script, opts...)
	c, _ := newClient(t, srv)
	var got []windowParams
	a := &llm.Agent{Role: llm.RoleExplorer, Model: c, Tools: []llm.Tool{recordTool(&got)}}
	out, err := a.Run(t.Context(), []llm.Message{{Role: llm.System, Content: "explore"}, {Role: llm.User, Content: "go"}})
	require.NoError(t, err)
	return out, got, srv
}

func TestCutReplyIsNeverAnAnswer(t *testing.T) {
	t.Parallel()
	out, got, _ := runAgent(t, llmtest.Script{
		llmtest.Reply("Here is the whole spec: the fun").Finish(llm.FinishLength),
		llmtest.Call("read_file", `{"path":"a.go"}`).When(llmtest.Expect{Last: "cut off at the output limit"}),
		llmtest.Reply("done"),
	})
	assert.Equal(t, llm.StopFinished, out.Reason)
	assert.Equal(t, "done", out.Final.Content)
	assert.Equal(t, []windowParams{{Path: "a.go"}}, got)
}

func TestRepeatedCutsEndWithOutputLimit(t *testing.T) {
	t.Parallel()
	// A reasoning model that spends its whole budget thinking.
	cut := llmtest.Exchange{Reply: llmtest.Answer{Reasoning: "let me think about", Finish: llm.FinishLength}}.Times(3)
	out, _, srv := runAgent(t, llmtest.Script{cut})
	assert.Equal(t, llm.StopOutputLimit, out.Reason)
	assert.Contains(t, out.Detail, "cut off at the output limit")
	assert.Len(t, srv.Requests(), 3, "bounded")
	for _, m := range out.Messages {
		assert.False(t, m.Role == llm.Assistant && m.Content == "", "no empty assistant message")
	}
}

func TestEmptyRefusedAndFilteredRepliesEndWithNoAction(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		reply  llmtest.Answer
		detail string
	}{
		"empty":   {llmtest.Answer{}, "reply was empty"},
		"refusal": {llmtest.Answer{Refusal: "I can't help with that."}, "refused: I can't help with that."},
		"filter":  {llmtest.Answer{Content: "partial", Finish: llm.FinishContentFilter}, "content filter"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, _, srv := runAgent(t, llmtest.Script{{Reply: tc.reply, Repeat: 3}})
			assert.Equal(t, llm.StopNoAction, out.Reason)
			assert.Contains(t, out.Detail, tc.detail)
			assert.Len(t, srv.Requests(), 3)
			assert.Contains(t, srv.Requests()[1].Last().Content, "Every reply must either call one of the tools")
		})
	}
}

func TestMalformedCallsInARowEndWithNoAction(t *testing.T) {
	t.Parallel()
	out, got, srv := runAgent(t, llmtest.Script{llmtest.Call("read_file", `{"path": "a.go"`).Times(3)})
	assert.Equal(t, llm.StopNoAction, out.Reason)
	assert.Contains(t, out.Detail, "malformed")
	assert.Empty(t, got, "a call with unreadable arguments is never run")
	// The strict server (vLLM's rule) accepted every request: the bad
	// arguments were never replayed.
	assert.Len(t, srv.Requests(), 3)
	assert.Empty(t, srv.Rejected())
}

func TestArgumentsRepairedSplitAndCoerced(t *testing.T) {
	t.Parallel()
	glued := llmtest.Call("read_file", `{"path":"a.go"}{"path":"b.go","offset":"10"}`)
	fenced := llmtest.Call("read_file", "```json\n{\"path\":\"c.go\",\"all\":\"true\"}\n```")
	sameIndex := llmtest.Calls(llmtest.CallSpec{ID: "x1", Name: "read_file", Args: map[string]any{"path": "d.go"}},
		llmtest.CallSpec{ID: "x2", Name: "read_file", Args: map[string]any{"path": "e.go"}})
	sameIndex.Reply.SameIndex = true
	out, got, srv := runAgent(t, llmtest.Script{glued, fenced, sameIndex, llmtest.Reply("done")})
	assert.Equal(t, llm.StopFinished, out.Reason)
	assert.Equal(t, []windowParams{{Path: "a.go"}, {Path: "b.go", Offset: 10}, {Path: "c.go", All: true}, {Path: "d.go"}, {Path: "e.go"}}, got)
	last := srv.Requests()[3]
	var ids []string
	for _, m := range last.Messages {
		if m.Role == llm.ToolRole {
			ids = append(ids, m.ToolCallID)
		}
	}
	assert.Len(t, ids, 5, "one result per call, each id answered (strict server)")
}

func TestToolCallsWrittenAsText(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		// qwen2.5-coder on Ollama: https://github.com/ollama/ollama/issues/12174
		"bare json":  `{"name": "read_file", "arguments": {"path": "temp.go"}}`,
		"hermes tag": "I will read it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"temp.go\"}}\n</tool_call>",
		"fenced":     "```json\n{\"name\": \"read_file\", \"parameters\": {\"path\": \"temp.go\"}}\n```",
		// Qwen3-Coder's XML (its chat template's tool-call shape).
		"qwen3-coder xml":                     "<tool_call>\n<function=read_file>\n<parameter=path>\ntemp.go\n</parameter>\n</function>\n</tool_call>",
		"qwen3-coder xml without the wrapper": "Reading it.\n<function=read_file>\n<parameter=path>\ntemp.go\n</parameter>\n</function>",
		// Mistral: both of its templates' shapes.
		"mistral list":  `[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "temp.go"}}]`,
		"mistral named": `[TOOL_CALLS]read_file[ARGS]{"path": "temp.go"}`,
		// Llama 3.x: the python tag, and its bare "parameters" object.
		"llama python tag": `<|python_tag|>{"name": "read_file", "parameters": {"path": "temp.go"}}<|eom_id|>`,
		"llama parameters": `{"name": "read_file", "parameters": {"path": "temp.go"}}`,
		// gpt-oss harmony.
		"gpt-oss harmony":          "<|channel|>analysis<|message|>I should read it.<|end|><|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\":\"temp.go\"}<|call|>",
		"a sentence then the json": "I will read the file now:\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"temp.go\"}}",
		// DeepSeek V3 and R1, and V3.1 (their templates' shapes, passed on
		// as text by a server that did not parse them).
		"deepseek v3":   "Reading it.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"temp.go\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		"deepseek v3.1": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"temp.go\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, got, srv := runAgent(t, llmtest.Script{
				llmtest.Reply(text),
				llmtest.Reply("temp.go converts temperatures").When(llmtest.Expect{LastRole: llm.ToolRole, ToolResult: "contents of temp.go"}),
			})
			assert.Equal(t, llm.StopFinished, out.Reason)
			assert.Equal(t, "temp.go converts temperatures", out.Final.Content)
			assert.Equal(t, []windowParams{{Path: "temp.go"}}, got)
			sent := srv.Requests()[1].Messages
			var calls []llm.ToolCall
			for _, m := range sent {
				calls = append(calls, m.ToolCalls...)
			}
			require.Len(t, calls, 1, "replayed as a real tool call")
			assert.JSONEq(t, `{"path":"temp.go"}`, calls[0].Arguments)
			assert.Regexp(t, `^[A-Za-z0-9]{9}$`, calls[0].ID, "Mistral's templates take only 9 alphanumeric characters")
		})
	}
}

func TestProseWithJSONStaysAnAnswer(t *testing.T) {
	t.Parallel()
	answer := "The config looks like:\n```json\n{\"name\": \"server\", \"port\": 8080}\n```"
	out, got, _ := runAgent(t, llmtest.Script{llmtest.Reply(answer)})
	assert.Equal(t, llm.StopFinished, out.Reason)
	assert.Equal(t, answer, out.Final.Content)
	assert.Empty(t, got)
}

// DeepSeek's thinking mode answers 400 on a history without the
// reasoning: https://github.com/the-open-agent/openagent/issues/2206.
func TestReasoningSentBackAfterProviders400(t *testing.T) {
	t.Parallel()
	deepseek := llmtest.Fault{Status: 400, Unless: "reasoning_content",
		Message: "The `reasoning_content` in the thinking mode must be passed back to the API."}
	out, got, srv := runAgent(t, llmtest.Script{
		llmtest.Call("read_file", `{"path":"a.go"}`).WithReasoning("I should read a.go"),
		llmtest.Reply("done").After(deepseek),
	})
	assert.Equal(t, llm.StopFinished, out.Reason)
	assert.Len(t, got, 1)
	reqs := srv.Requests()
	require.Len(t, reqs, 3, "one refused request, then the same with the reasoning")
	assert.NotContains(t, string(reqs[1].Body), "reasoning_content")
	assert.Contains(t, string(reqs[2].Body), `"reasoning_content":"I should read a.go"`)
}

// Gemini 3 needs the call's thought_signature back:
// https://github.com/langgenius/dify-official-plugins/issues/2088.
func TestThoughtSignatureEchoed(t *testing.T) {
	t.Parallel()
	for _, plain := range []bool{false, true} {
		sig := map[string]any{"extra_content": map[string]any{"google": map[string]any{"thought_signature": "c2lnbmF0dXJl"}}}
		call := llmtest.Exchange{Reply: llmtest.Answer{Plain: plain, ToolCalls: []llmtest.CallSpec{{Name: "read_file", Args: map[string]any{"path": "a.go"}, Extra: sig}}}}
		gemini := llmtest.Fault{Status: 400, Unless: "c2lnbmF0dXJl",
			Message: "Function call is missing a thought_signature in functionCall parts."}
		script := llmtest.Script{call, llmtest.Reply("done").After(gemini)}
		if plain {
			// A plain body to a streaming request is asked again without
			// streaming.
			script = append(llmtest.Script{call}, script...)
		}
		out, _, srv := runAgent(t, script)
		assert.Equal(t, llm.StopFinished, out.Reason)
		last := srv.Requests()[len(srv.Requests())-1]
		assert.Contains(t, string(last.Body), "c2lnbmF0dXJl", "plain=%v", plain)
		if !plain {
			checkSignature(t, srv)
		}
	}
}

func checkSignature(t *testing.T, srv *llmtest.Server) {
	require.Len(t, srv.Requests(), 2, "accepted the first time")
	var body struct {
		Messages []struct {
			ToolCalls []map[string]json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(srv.Requests()[1].Body, &body))
	assert.JSONEq(t, `{"google":{"thought_signature":"c2lnbmF0dXJl"}}`, string(body.Messages[2].ToolCalls[0]["extra_content"]))
}

func TestClosingThinkTagWithoutOpening(t *testing.T) {
	t.Parallel()
	// R1 distills through llama.cpp: https://github.com/deepseek-ai/DeepSeek-R1/issues/352
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("draft:\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n</think>\n\nThe answer.")})
	c, _ := newClient(t, srv)
	resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("?")})
	require.NoError(t, err)
	assert.Equal(t, "The answer.", resp.Message.Content)
	assert.Contains(t, resp.Message.Reasoning, "SEARCH")
}

func TestUsageReadAndTruncationDetected(t *testing.T) {
	t.Parallel()
	totalOnly := llmtest.Reply("ok")
	totalOnly.Reply.Usage = &llmtest.Usage{Prompt: 90, Completion: 10, TotalOnly: true}
	srv := llmtest.NewServer(t, llmtest.Script{totalOnly, llmtest.Reply("answer to a prompt it never saw").WithUsage(2048, 5, 0)})
	c, _ := newClient(t, srv)
	resp, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("?")})
	require.NoError(t, err)
	assert.Equal(t, 100, resp.Usage.Total())
	assert.False(t, resp.UsageEstimated)
	assert.Positive(t, resp.Usage.CompletionTokens)

	long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 800)
	_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg(long)})
	require.ErrorIs(t, err, llm.ErrContextLength)
	assert.Contains(t, err.Error(), "num_ctx")
}

func TestRateLimitAndQuotaErrors(t *testing.T) {
	t.Parallel()
	ms := llmtest.Fault{Status: 429, RetryAfterMS: "1500"}
	quota := llmtest.Fault{Status: 429, Code: "insufficient_quota",
		Message: "You exceeded your current quota, please check your plan and billing details."}
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("ok").After(ms), llmtest.Reply("never").After(quota)})
	c, sl := newClient(t, srv)
	_, err := c.Chat(t.Context(), llm.Request{Messages: userMsg("a")})
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{1500 * time.Millisecond}, sl.waits(), "retry-after-ms honoured")
	_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("b")})
	require.ErrorIs(t, err, llm.ErrQuota)
	assert.Contains(t, err.Error(), "billing")
	assert.Len(t, srv.Requests(), 3, "quota is not retried")
	_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("c")})
	require.NoError(t, err)
}

func TestNoToolSupportNamesTheProtocolSetting(t *testing.T) {
	t.Parallel()
	for name, msg := range map[string]string{
		"ollama": "registry.ollama.ai/library/gemma3:4b does not support tools",
		"vllm":   `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("ok").After(llmtest.Fault{Status: 400, Message: msg})})
			c, _ := newClient(t, srv)
			var calls atomic.Int32
			_, err := c.Chat(t.Context(), llm.Request{Role: llm.RoleCoder, Messages: userMsg("a"),
				Tools: []llm.ToolSpec{readTool(nil, &calls).Spec()}})
			require.ErrorIs(t, err, llm.ErrNoToolSupport)
			assert.Contains(t, err.Error(), "llm.protocols.test-model (test-model=text)")
			assert.Contains(t, err.Error(), "llm.roles.coder.protocol (coder:text)")
			_, err = c.Chat(t.Context(), llm.Request{Messages: userMsg("b")})
			require.NoError(t, err)
		})
	}
}

func TestHistoryHygieneSatisfiesStrictServers(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("ok")}, llmtest.WithAlternation())
	c, _ := newClient(t, srv)
	call := llm.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path": "a`}
	msgs := []llm.Message{
		{Role: llm.System, Content: "s"},
		{Role: llm.User, Content: "issue"}, {Role: llm.User, Content: "repo map"},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{call, {ID: "c2", Name: "read_file", Arguments: "{}"}}},
		{Role: llm.ToolRole, ToolCallID: "c1", Content: "r1"},
		{Role: llm.User, Content: "observer: look at b.go"},
		{Role: llm.Assistant},
		{Role: llm.ToolRole, ToolCallID: "zz", Name: "grep", Content: "stray"},
	}
	_, err := c.Chat(t.Context(), llm.Request{Messages: msgs})
	require.NoError(t, err)
	sent := srv.Requests()[0].Messages
	roles := make([]string, len(sent))
	for i, m := range sent {
		roles[i] = m.Role
	}
	assert.Equal(t, []string{"system", "user", "assistant", "tool", "tool", "assistant", "user"}, roles)
	assert.Equal(t, "issue\n\nrepo map", sent[1].Content)
	assert.Equal(t, "{}", sent[2].ToolCalls[0].Arguments)
	assert.Equal(t, "r1", sent[3].Content)
	assert.Contains(t, sent[4].Content, "no result")
	assert.Contains(t, sent[4].Content, "observer: look at b.go", "folded into the last result")
	assert.Equal(t, "[result of grep]\nstray", sent[6].Content)
	assert.Equal(t, "{\"path\": \"a", msgs[3].ToolCalls[0].Arguments, "the caller's messages are not modified")
}

func TestToolCallIDsSentAsNineAlphanumerics(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("ok"), llmtest.Reply("ok")})
	c, _ := newClient(t, srv)
	long := "oGFR5ayntWteaCXq1QinE87ELd2EY9U4" // llama-server's id for a call its model wrote none for
	msgs := []llm.Message{
		{Role: llm.User, Content: "issue"},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{
			{ID: long, Name: "read_file", Arguments: "{}"}, {ID: "abcDEF123", Name: "read_file", Arguments: "{}"}}},
		{Role: llm.ToolRole, ToolCallID: long, Content: "r1"},
		{Role: llm.ToolRole, ToolCallID: "abcDEF123", Content: "r2"},
	}
	for range 2 {
		_, err := c.Chat(t.Context(), llm.Request{Messages: msgs})
		require.NoError(t, err)
	}
	first, second := srv.Requests()[0].Messages, srv.Requests()[1].Messages
	id := first[1].ToolCalls[0].ID
	assert.Regexp(t, `^[A-Za-z0-9]{9}$`, id)
	assert.Equal(t, id, first[2].ToolCallID, "the result still answers its call")
	assert.Equal(t, "abcDEF123", first[1].ToolCalls[1].ID, "an id of nine alphanumerics is kept")
	assert.Equal(t, id, second[1].ToolCalls[0].ID, "the same id each request: the history stays a prefix")
	assert.Equal(t, long, msgs[1].ToolCalls[0].ID, "the caller's messages are not modified")
}
