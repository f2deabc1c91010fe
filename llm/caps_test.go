package llm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// TestDefaultCapPerRole: with no cap set, each role's request carries its
// default (not the server's own, which for llama.cpp and Ollama is none);
// a set cap is sent as set; a stated window lowers only the default, to the
// room the prompt leaves.
func TestDefaultCapPerRole(t *testing.T) {
	t.Parallel()
	ask := func(t *testing.T, srv *llmtest.Server, role llm.Role, edit ...func(*llm.Config)) int {
		c, _ := newClient(t, srv, edit...)
		_, err := c.Chat(t.Context(), llm.Request{Role: role, Messages: userMsg("go")})
		require.NoError(t, err)
		reqs := srv.Requests()
		return reqs[len(reqs)-1].MaxTokens
	}
	script := func(n int) llmtest.Script { return llmtest.Script{llmtest.Reply("ok").Times(n)} }

	srv := llmtest.NewServer(t, script(5))
	for _, role := range []llm.Role{llm.RoleExplorer, llm.RolePlanner, llm.RoleCoder, llm.RoleObserver} {
		assert.Equal(t, llm.DefaultMaxTokens[role], ask(t, srv, role), role)
	}
	assert.Equal(t, 32_768, llm.DefaultMaxTokens[llm.RoleCoder])
	assert.Equal(t, 4_096, llm.DefaultMaxTokens[llm.RoleObserver])
	assert.Equal(t, 900, ask(t, srv, llm.RoleCoder, func(c *llm.Config) { c.MaxTokens = 900 }), "a set cap is sent as set")

	small := llmtest.NewServer(t, script(2), llmtest.WithModels("test-model"), llmtest.WithVLLM(8192))
	got := ask(t, small, llm.RoleCoder)
	assert.Less(t, got, 8192, "a default that does not fit the window is lowered")
	assert.Greater(t, got, 8000, "to the room the short prompt leaves")
	assert.Equal(t, 20_000, ask(t, small, llm.RoleCoder, func(c *llm.Config) { c.MaxTokens = 20_000 }),
		"a set cap is the operator's: sent even when it does not fit")
}

// A hosted API that caps replies itself refuses a larger default (DeepSeek:
// "the valid range of max_tokens is [1, 8192]"): the call is asked again
// with the cap the server named, which every later call of that model
// keeps; a cap the operator set is never changed.
func TestDefaultCapRefusedIsLearnt(t *testing.T) {
	t.Parallel()
	refusal := llmtest.Fault{Status: 400,
		Message: "Invalid max_tokens value, the valid range of max_tokens is [1, 8192]", Unless: `"max_tokens":8192`}
	srv := llmtest.NewServer(t, llmtest.Script{
		llmtest.Reply("ok").After(refusal), llmtest.Reply("ok").Times(2),
		{Expect: llmtest.Expect{Role: "planner"}, Faults: []llmtest.Fault{refusal}, Forever: true},
	})
	c, _ := newClient(t, srv)
	for _, role := range []llm.Role{llm.RoleExplorer, llm.RoleExplorer, llm.RoleCoder} {
		_, err := c.Chat(t.Context(), llm.Request{Role: role, Messages: userMsg("go")})
		require.NoError(t, err, role)
	}
	var sent []int
	for _, r := range srv.Requests() {
		sent = append(sent, r.MaxTokens)
	}
	assert.Equal(t, []int{16_384, 8192, 8192, 8192}, sent, "refused once, then the server's cap for every role")

	_, err := c.Chat(t.Context(), llm.Request{Role: llm.RolePlanner, MaxTokens: 20_000, Messages: userMsg("go")})
	require.Error(t, err, "a cap the caller set is not changed")
	assert.Equal(t, 20_000, srv.Requests()[len(srv.Requests())-1].MaxTokens)
}

// OpenAI's and vLLM's refusals of a default cap: the number OpenAI names is
// kept; vLLM names none (its own cap is what the window leaves), so the
// call goes without one.
func TestDefaultCapRefusalsOfOpenAIAndVLLM(t *testing.T) {
	t.Parallel()
	openAI := llmtest.Fault{Status: 400, Unless: `"max_tokens":16384`,
		Message: "max_tokens is too large: 32768. This model supports at most 16384 completion tokens, whereas you provided 32768."}
	vLLM := llmtest.Fault{Status: 400, Message: "'max_tokens' or 'max_completion_tokens' is too large: 32768. This model's maximum " +
		"context length is 32768 tokens and your request has 40 input tokens (32768 > 32768 - 40)."}
	for name, tc := range map[string]struct {
		fault llmtest.Fault
		want  []int
	}{
		"openai": {openAI, []int{32_768, 16_384}},
		"vllm":   {vLLM, []int{32_768, 0}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Script{llmtest.Reply("ok").After(tc.fault)})
			c, _ := newClient(t, srv)
			_, err := c.Chat(t.Context(), llm.Request{Role: llm.RoleCoder, Messages: userMsg("go")})
			require.NoError(t, err)
			var sent []int
			for _, r := range srv.Requests() {
				sent = append(sent, r.MaxTokens)
			}
			assert.Equal(t, tc.want, sent)
		})
	}
}
