package agents

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// The model's and server's failures that are no fault of the issue (issue
// 34): each row plays one behaviour and the run must end with an
// *llm.ModelFailure naming it and the setting to change, never with a spec
// asking the author which files to look at. before is each row's
// outcome before issue 34, for the record:
//
//	prose every turn          partial spec "answered in prose", question to the author, Stopped: needs answers
//	calls the bot cannot run  partial spec "wrote its tool calls as text", question to the author
//	400 context length        partial spec "no longer fit the context window", question to the author
//	vLLM max_tokens too large the same, as a context overflow (the cap, not the prompt, was the problem)
//	length every turn         partial spec "cut off at the output limit", question to the author
//	repetition loop           the same as length every turn; the loop's text became the spec's desired behaviour
//	Jinja template error      retried as overload (4 attempts at MAX_RETRIES=3), then "the explorer could not finish: … 500"
func fmModelRows() []fmRow {
	explorer := llmtest.Expect{Role: "explorer"}
	always := func(e llmtest.Exchange) llmtest.Script { return llmtest.Script{e.When(explorer).Always()} }
	refused := func(f llmtest.Fault) llmtest.Script {
		return llmtest.Script{{Expect: explorer, Faults: []llmtest.Fault{f}, Forever: true}}
	}
	failed := func(kind error, want ...string) func(t *testing.T, run fmRun) {
		return func(t *testing.T, run fmRun) {
			var f *llm.ModelFailure
			require.ErrorAs(t, run.err, &f, "the model's failure, not the issue's")
			if kind != nil {
				assert.ErrorIs(t, run.err, kind)
			}
			require.NotNil(t, run.out)
			assert.Nil(t, run.out.Spec, "no spec asks the issue's author anything")
			assert.Empty(t, run.out.Stopped)
			for _, w := range want {
				assert.Contains(t, run.err.Error(), w)
			}
		}
	}
	protocol := "ISSUESMITH_MODEL_ROLE_PROTOCOLS (explorer:text)"
	retries := []string{"ISSUESMITH_MODEL_MAX_RETRIES=3"}
	return []fmRow{
		{name: "prose every turn is the model's failure", report: "https://github.com/Gitlawb/openclaude/issues/1053",
			script: always(llmtest.Reply("The greeting is printed in main.go; a goodbye should follow it.")),
			want:   "answered in prose every turn", check: failed(nil, protocol)},
		{name: "calls the bot cannot run are the model's failure", report: "https://github.com/Gitlawb/openclaude/issues/433",
			script: always(llmtest.Reply("<tool_call>read_file(path='greet/greet.go')</tool_call>")),
			want:   "wrote its tool calls as text", check: failed(nil, protocol)},
		{name: "a 400 context overflow before any file is the model's failure", report: "https://github.com/vllm-project/vllm/issues/20409",
			script: refused(llmtest.Fault{Status: 400, Code: "context_length_exceeded",
				Message: "This model's maximum context length is 4096 tokens. However, your messages resulted in 5210 tokens."}),
			want: "context window", check: failed(llm.ErrContextLength, "ISSUESMITH_MODEL_ROLES explorer:NAME")},
		// The operator's cap: a default one vLLM refuses is dropped and asked again (llm/caps.go).
		{name: "vLLM's max_tokens too large names the cap", report: "https://github.com/ogx-ai/ogx/issues/4534",
			env: []string{"ISSUESMITH_MODEL_MAX_COMPLETION_TOKENS=8192"},
			script: refused(llmtest.Fault{Status: 400, Message: "'max_tokens' or 'max_completion_tokens' is too large: 8192. " +
				"This model's maximum context length is 8192 tokens and your request has 1312 input tokens (8192 > 8192 - 1312)."}),
			want: "completion cap", check: failed(llm.ErrMaxTokens, "ISSUESMITH_MODEL_MAX_COMPLETION_TOKENS")},
		{name: "every reply cut at the output limit is the model's failure", report: "https://github.com/posit-dev/chatlas/issues/327",
			script: always(llmtest.Reply("The desired behaviour is that main prints").Finish(llm.FinishLength)),
			want:   "output_limit", check: failed(nil, "ISSUESMITH_MODEL_MAX_COMPLETION_TOKENS")},
		{name: "a repetition loop stops: the model repeated itself", report: "https://github.com/QwenLM/qwen-code/issues/1403",
			script: always(llmtest.Reply(strings.Repeat("I will now read greet.go to see the greeting. ", 300)).Finish(llm.FinishLength)),
			want:   "repeated itself", check: failed(llm.ErrRepetition)},
		{name: "a chat template error is not retried and names the fix", report: "https://github.com/ml-explore/mlx-lm/issues/1375", env: retries,
			script: refused(llmtest.Fault{Status: 500, Message: "Tool call IDs should be alphanumeric strings with length 9!"}),
			want:   "chat template", check: func(t *testing.T, run fmRun) {
				failed(llm.ErrTemplate, "--jinja", protocol)(t, run)
				assert.Len(t, run.requests, 1, "a template's refusal is the same every time: not retried")
			}},
	}
}
