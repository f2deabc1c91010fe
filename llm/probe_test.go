package llm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

func TestProbeSaysHowTheModelCallsTools(t *testing.T) {
	t.Parallel()
	probe := llmtest.Expect{Probe: true, Tools: []string{"report"}}
	deepseek := llmtest.Fault{Status: 400, Unless: "reasoning_content",
		Message: "The `reasoning_content` in the thinking mode must be passed back to the API."}
	asText := func(text string) llmtest.Script { return llmtest.Script{llmtest.Reply(text).When(probe)} }
	const runsText = "writes its tool calls as text; the bot runs such calls, but the server did not parse them (llama.cpp: start it with --jinja"
	calls := llmtest.Script{llmtest.Call("report", `{"word":"ready"}`).When(probe)}
	capped := func(n int) func(*llm.Config) { return func(cfg *llm.Config) { cfg.MaxTokens = n } }
	for _, tc := range []struct {
		name   string
		script llmtest.Script
		want   string
		ok     bool
		opts   []llmtest.Option
		edit   func(*llm.Config)
		prompt int // ExpectPrompt for the coder
	}{
		{name: "tools", script: calls, want: `model "test-model" (coder, tools protocol): calls tools`, ok: true},
		{name: "qwen2.5-coder on ollama", script: asText(`{"name": "report", "arguments": {"word": "ready"}}`),
			want: runsText + "; vLLM: --enable-auto-tool-choice --tool-call-parser NAME); or use the text protocol: set llm.protocols.test-model (test-model=text)"},
		{name: "llama.cpp without --jinja, Qwen3-Coder", script: asText("<tool_call>\n<function=report>\n<parameter=word>\nready\n</parameter>\n</function>\n</tool_call>"), want: runsText},
		{name: "llama.cpp without --jinja, Mistral", script: asText(`[TOOL_CALLS][{"name": "report", "arguments": {"word": "ready"}}]`), want: runsText},
		{name: "llama.cpp without --jinja, Llama 3.1", script: asText(`<|python_tag|>{"name": "report", "parameters": {"word": "ready"}}`), want: runsText},
		{name: "a sentence, then the JSON", script: asText("I will report it now:\n{\"name\": \"report\", \"arguments\": {\"word\": \"ready\"}}"), want: runsText},
		{name: "ollama without tools", script: llmtest.Script{llmtest.Reply("x").When(probe).After(llmtest.Fault{Status: 400, Message: "test-model does not support tools"})},
			want: "cannot call tools; use the text protocol: set llm.protocols.test-model (test-model=text) or llm.roles.coder.protocol (coder:text)"},
		{name: "vllm without auto tool choice", script: llmtest.Script{llmtest.Reply("x").When(probe).After(llmtest.Fault{Status: 400,
			Message: `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`})},
			want: "cannot call tools; use the text protocol"},
		{name: "answers in prose", script: asText("Ready!"), want: "answered without calling the tool; use the text protocol"},
		{name: "reasoning model", script: llmtest.Script{
			llmtest.Call("report", `{"word":"ready"}`).WithReasoning("the user wants a call").When(probe),
			llmtest.Reply("done").When(llmtest.Expect{Probe: true, LastRole: llm.ToolRole}).After(deepseek)},
			want: "calls tools, thinks before answering, needs its reasoning passed back (sent from now on)", ok: true},
		{name: "thinks out of the configured cap", script: llmtest.Script{{Expect: probe, Reply: llmtest.Answer{Reasoning: "hmm", Finish: llm.FinishLength}}},
			edit: capped(2048),
			want: "was cut off at the output limit before calling the tool, thinks before answering; raise llm.max_tokens (now 2048) or llm.roles.coder.max_tokens (coder:N)"},
		{name: "thinks out of the server's cap", script: llmtest.Script{{Expect: probe, Reply: llmtest.Answer{Reasoning: "hmm", Finish: llm.FinishLength}}},
			want: "no completion cap is set, so the coder's default (32768 tokens) was sent and the server's own or that default cut the reply: raise the server's (Ollama num_predict, llama.cpp --n-predict) or set llm.max_tokens"},
		{name: "ollama at its default num_ctx", script: calls, opts: []llmtest.Option{llmtest.WithOllama(llmtest.Ollama{Ctx: 4096, Loaded: true})}, prompt: 6000,
			want: "calls tools, context window 4096 tokens (Ollama context_length of the loaded model); the context window (4096 tokens) cannot hold " +
				"the coder's first request (about 6000 tokens) and a 1024-token reply: raise Ollama's num_ctx (OLLAMA_CONTEXT_LENGTH=32768"},
		{name: "ollama not saying its window", script: calls, opts: []llmtest.Option{llmtest.WithOllama(llmtest.Ollama{Ctx: 4096})}, prompt: 6000,
			want: "calls tools; Ollama does not say this model's context window, and its default num_ctx (4096 on a machine with less than 24 GiB of VRAM)"},
		{name: "llama.cpp with --jinja and room", script: calls, opts: []llmtest.Option{llmtest.WithLlamaCpp(32768)}, prompt: 6000,
			want: "calls tools, context window 32768 tokens (llama.cpp n_ctx)", ok: true},
		{name: "vllm with a small --max-model-len", script: calls, opts: []llmtest.Option{llmtest.WithModels("test-model"), llmtest.WithVLLM(8192)},
			edit: capped(4096), prompt: 6000,
			want: "the context window (8192 tokens) cannot hold the coder's first request (about 6000 tokens) and a 4096-token reply: raise vLLM's --max-model-len"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, tc.script, tc.opts...)
			var edits []func(*llm.Config)
			if tc.edit != nil {
				edits = append(edits, tc.edit)
			}
			c, _ := newClient(t, srv, edits...)
			if tc.prompt > 0 {
				c.ExpectPrompt(llm.RoleCoder, tc.prompt)
			}
			p := c.Probe(t.Context(), llm.RoleCoder)
			assert.Contains(t, p.String(), tc.want)
			assert.Equal(t, tc.ok, p.OK(), p.String())
			if reqs := srv.Requests(); len(reqs) > 0 {
				assert.Equal(t, p.MaxTokens, reqs[0].MaxTokens, "the probe sends the configured cap")
			}
			if srv.Remaining() > 0 {
				// The refused probe's exchange: a second probe plays its
				// reply, so the script ends.
				c.Probe(t.Context(), llm.RoleCoder)
			}
		})
	}
}

func TestProbeReportsAnUnreachableEndpointAndSkipsTextModels(t *testing.T) {
	t.Parallel()
	c, err := llm.NewClient(llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", Retry: llm.RetryConfig{MaxAttempts: 1}})
	require.NoError(t, err)
	p := c.Probe(t.Context(), llm.RoleExplorer)
	require.ErrorIs(t, p.Err, llm.ErrUnreachable)
	assert.Contains(t, p.String(), `model "m" (explorer, tools protocol): probe failed: model endpoint unreachable`)

	srv := llmtest.NewServer(t, nil) // answers the probe itself
	c, _ = newClient(t, srv, func(cfg *llm.Config) {
		cfg.Roles = map[llm.Role]llm.RoleConfig{llm.RoleObserver: {Model: "small", Protocol: llm.ProtocolText}}
	})
	got := c.ProbeAll(t.Context(), llm.RoleExplorer, llm.RolePlanner, llm.RoleObserver)
	require.Len(t, got, 2, "one probe per model and protocol")
	assert.True(t, got[0].OK() && got[0].CallsTools, got[0].String())
	assert.Equal(t, `model "small" (observer, text protocol): answers`, got[1].String())
	assert.Len(t, srv.Probes(), 2)
	assert.Empty(t, srv.Requests(), "probes stay out of the script's requests")
}
