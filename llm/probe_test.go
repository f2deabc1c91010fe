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
	for _, tc := range []struct {
		name   string
		script llmtest.Script
		want   string
		ok     bool
	}{
		{"tools", llmtest.Script{llmtest.Call("report", `{"word":"ready"}`).When(probe)},
			`model "test-model" (coder, tools protocol): calls tools`, true},
		{"qwen2.5-coder on ollama", llmtest.Script{llmtest.Reply(`{"name": "report", "arguments": {"word": "ready"}}`).When(probe)},
			"writes its tool calls as text; the bot reads such calls, but use the text protocol: set llm.protocols.test-model (test-model=text)", false},
		{"ollama without tools", llmtest.Script{llmtest.Reply("x").When(probe).After(llmtest.Fault{Status: 400, Message: "test-model does not support tools"})},
			"cannot call tools; use the text protocol: set llm.protocols.test-model (test-model=text) or llm.roles.coder.protocol (coder:text)", false},
		{"vllm without auto tool choice", llmtest.Script{llmtest.Reply("x").When(probe).After(llmtest.Fault{Status: 400,
			Message: `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`})},
			"cannot call tools; use the text protocol", false},
		{"answers in prose", llmtest.Script{llmtest.Reply("Ready!").When(probe)},
			"answered without calling the tool; use the text protocol", false},
		{"reasoning model", llmtest.Script{
			llmtest.Call("report", `{"word":"ready"}`).WithReasoning("the user wants a call").When(probe),
			llmtest.Reply("done").When(llmtest.Expect{Probe: true, LastRole: llm.ToolRole}).After(deepseek)},
			"calls tools, thinks before answering, needs its reasoning passed back (sent from now on)", true},
		{"thinks out of budget", llmtest.Script{{Expect: probe, Reply: llmtest.Answer{Reasoning: "hmm", Finish: llm.FinishLength}}},
			"was cut off at the output limit before calling the tool, thinks before answering; raise llm.max_tokens", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, tc.script)
			c, _ := newClient(t, srv)
			p := c.Probe(t.Context(), llm.RoleCoder)
			assert.Contains(t, p.String(), tc.want)
			assert.Equal(t, tc.ok, p.OK(), p.String())
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
