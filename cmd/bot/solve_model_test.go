package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// The model's and server's failures through the whole `bot solve` command
// (issue 34): each row is a scripted server playing one behaviour, and the
// command must end with an error naming the model's problem and the setting
// to change, never with "the issue needs answers" and exit 0. before is
// what bot solve printed and exited with before the change.

const greetGoal = "# Add a goodbye\n\nThe CLI should say goodbye after the greeting.\n"

func greetTree(t *testing.T) string {
	return writeTree(t, map[string]string{
		"go.mod":                 "module example.com/greet\n\ngo 1.22\n",
		"main.go":                "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"Hello\")\n}\n",
		".github/issuesmith.yml": "version: 1\nobserver: false\nroles:\n  explorer:\n    max_steps: 6\n",
	})
}

const (
	greetSpec = `{"topic":"Say goodbye","current":["main.go prints Hello only"],"desired":["main prints Goodbye after Hello"],` +
		`"files":[{"path":"main.go","action":"modify","reason":"print the goodbye"}]}`
	madeUpSpec = `{"topic":"Add request logging","current":["requests are not logged"],"desired":["every request is logged"],` +
		`"files":[{"path":"main.go","action":"modify","reason":"log requests"}]}`
	greetPlan = `{"items":[{"path":"main.go","action":"modify","reason":"print the goodbye",` +
		`"steps":["After the greeting, print Goodbye"],"depends_on":[]}]}`
)

type solveModelRow struct {
	name   string
	script llmtest.Script
	env    []string
	args   []string
	opts   []llmtest.Option // the server's behaviour beside the script
	// want are what stderr or the error must say; the run must fail.
	want []string
	// before is the outcome before issue 34.
	before string
}

func explorerAlways(e llmtest.Exchange) llmtest.Script {
	return llmtest.Script{e.When(llmtest.Expect{Role: "explorer"}).Always()}
}

func solveModelRows() []solveModelRow {
	repeated := strings.Repeat("I will now read main.go to see the greeting. ", 200)
	return []solveModelRow{
		{name: "prose every turn", script: explorerAlways(llmtest.Reply("The greeting is printed in main.go; a goodbye line should follow it.")),
			want:   []string{"the model failed", "prose", "ISSUESMITH_MODEL_ROLE_PROTOCOLS"},
			before: "exit 0; spec with the question 'which files or folders should it look at?'; solve: the issue needs answers"},
		{name: "calls as text the bot cannot parse", script: explorerAlways(llmtest.Reply("<tool_call>read_file(path='main.go')</tool_call>")),
			want:   []string{"the model failed", "tool calls as text", "ISSUESMITH_MODEL_ROLE_PROTOCOLS"},
			before: "exit 0; partial spec with a question; solve: the issue needs answers"},
		{name: "context overflow (400)", script: llmtest.Script{{Expect: llmtest.Expect{Role: "explorer"}, Forever: true, Faults: []llmtest.Fault{{Status: 400, Code: "context_length_exceeded",
			Message: "This model's maximum context length is 4096 tokens. However, your messages resulted in 5210 tokens. Please reduce the length of the messages."}}}},
			want:   []string{"the model failed", "context window", "ISSUESMITH_MODEL_"},
			before: "exit 0; partial spec (context_window) with a question; solve: the issue needs answers"},
		// The operator's cap (a default one vLLM refuses is dropped and asked again).
		{name: "vLLM max_tokens too large (400)", env: []string{"ISSUESMITH_MODEL_MAX_COMPLETION_TOKENS=8192"}, script: llmtest.Script{{Expect: llmtest.Expect{Role: "explorer"}, Forever: true, Faults: []llmtest.Fault{{Status: 400,
			Message: "'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum context length is 8192 tokens and your request has 1312 input tokens (8192 > 8192 - 1312)."}}}},
			want:   []string{"the model failed", "max_completion_tokens", "ISSUESMITH_MODEL_MAX_COMPLETION_TOKENS"},
			before: "exit 0; partial spec (context_window) with a question; solve: the issue needs answers"},
		{name: "every reply cut at the output limit", script: explorerAlways(llmtest.Reply("The desired behaviour is that main prints").Finish(llm.FinishLength)),
			want:   []string{"the model failed", "output limit", "MAX_COMPLETION_TOKENS"},
			before: "exit 0; partial spec (output_limit) with a question; solve: the issue needs answers"},
		{name: "every coder item failed: the coder's model never wrote an edit", script: llmtest.Script{
			llmtest.Call("read_file", `{"path":"main.go"}`).When(llmtest.Expect{Role: "explorer"}),
			llmtest.Call("submit_spec", greetSpec).When(llmtest.Expect{Role: "explorer", ToolResult: "fmt.Println"}),
			llmtest.Reply(greetPlan).When(llmtest.Expect{Role: "planner"}),
			llmtest.Reply("I would add a line that prints the goodbye.").When(llmtest.Expect{Role: "coder"}).Always(),
		}, args: []string{"--no-branch"},
			want: []string{"the model failed", "the coder's model wrote no usable edit", "plan item main.go",
				"ISSUESMITH_MODEL_ROLES coder:NAME", "format: 3 replies in a row"},
			before: "exit 0; the spec, the plan and 'code: main.go failed …' printed, no diff; then (session 1 of issue 34) " +
				"exit 1 with 'every item of the plan failed, nothing was written: main.go: format: …', the model not named"},
		{name: "the planner's model never gives a valid plan", script: llmtest.Script{
			llmtest.Call("read_file", `{"path":"main.go"}`).When(llmtest.Expect{Role: "explorer"}),
			llmtest.Call("submit_spec", greetSpec).When(llmtest.Expect{Role: "explorer", ToolResult: "fmt.Println"}),
			llmtest.Reply("Edit main.go to print the goodbye after the greeting.").When(llmtest.Expect{Role: "planner"}).Always(),
		}, args: []string{"--no-branch"},
			want:   []string{"the model failed", "the planner's model gave no valid plan in 3 replies", "ISSUESMITH_MODEL_ROLES planner:NAME"},
			before: "exit 1 with 'plan: the model did not produce a valid plan: …', the model not named as the cause"},
		{name: "the coder's server refuses its request (template 500)", script: llmtest.Script{
			llmtest.Call("read_file", `{"path":"main.go"}`).When(llmtest.Expect{Role: "explorer"}),
			llmtest.Call("submit_spec", greetSpec).When(llmtest.Expect{Role: "explorer", ToolResult: "fmt.Println"}),
			llmtest.Reply(greetPlan).When(llmtest.Expect{Role: "planner"}),
			{Expect: llmtest.Expect{Role: "coder"}, Forever: true, Faults: []llmtest.Fault{{Status: 500,
				Message: "Jinja Exception: After the optional system message, conversation roles must alternate user/assistant/user/assistant/..."}}},
		}, args: []string{"--no-branch"},
			want:   []string{"the model failed", "chat template", "plan item main.go"},
			before: "exit 1 with 'every item of the plan failed, nothing was written: main.go: stopped by model_error: …', the model not named as the cause"},
		{name: "Ollama drops the oldest messages (num_ctx)", script: llmtest.Script{
			llmtest.Call("read_file", `{"path":"main.go"}`).When(llmtest.Expect{Role: "explorer"}),
			llmtest.Call("list_dir", `{"path":"."}`).When(llmtest.Expect{Role: "explorer"}),
			// The third request outgrows num_ctx: Ollama drops the issue and
			// the model, never having read it, makes a spec up.
			llmtest.Call("submit_spec", madeUpSpec).When(llmtest.Expect{Role: "explorer"}).Always(),
		}, opts: []llmtest.Option{llmtest.WithOllama(llmtest.Ollama{Ctx: 1820, Truncate: true})},
			want:   []string{"the model failed", "cut to fit a smaller context window", "num_ctx", "OLLAMA_CONTEXT_LENGTH"},
			before: "exit 0; the spec the model made up without the issue ('Add request logging') was accepted and planned"},
		{name: "repetition loop", script: explorerAlways(llmtest.Reply(repeated).Finish(llm.FinishLength)),
			want:   []string{"the model failed", "repeated itself"},
			before: "exit 0; partial spec (output_limit) with a question; solve: the issue needs answers"},
	}
}

func TestSolveModelFailures(t *testing.T) {
	t.Parallel()
	for _, row := range solveModelRows() {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, row.script, row.opts...)
			cmd := newSolveCmdWith(func() []string {
				return append([]string{"ISSUESMITH_MODEL_BASE_URL=" + srv.URL(), "ISSUESMITH_MODEL_NAME=scripted",
					"ISSUESMITH_MODEL_MAX_RETRIES=0"}, row.env...)
			})
			args := append([]string{"--repo", greetTree(t), "--issue", "-", "--no-probe"}, row.args...)
			out, progress, err := execCmd(t, cmd, greetGoal, args...)
			said := progress
			if err != nil {
				said += "\nerror: " + err.Error()
			}
			t.Logf("before: %s\nafter:\n%s", row.before, said)
			if !assert.Error(t, err, "a model failure is a failed run\n%s\n%s", out, progress) {
				return
			}
			for _, w := range row.want {
				assert.Contains(t, strings.ToLower(said), strings.ToLower(w))
			}
			assert.NotContains(t, said, "the issue needs answers")
			assert.NotContains(t, out, "which files or folders should it look at")
			assert.NotContains(t, out, "(reply cut off")
			assert.NotContains(t, out, "Add request logging", "a spec made up without the issue is never shown")
		})
	}
}
