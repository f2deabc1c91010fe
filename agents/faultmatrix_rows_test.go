package agents

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// The model-fault matrix (rows here, the runner in faultmatrix_test.go): explorer → planner → coder through Local on a
// small Go module, each row a scripted model that misbehaves in exactly one
// documented way (issue 25), plus the transport faults as regression rows.
// Every row asserts: the run ends within a bounded number of model calls
// and within its deadline; the outcome names the cause; every request the
// bot sent is one a strict server accepts (llmtest's strict mode, and
// Mistral's alternation); no item is done without its change; nothing
// outside the plan is written. Each row cites the public report it plays.

// The happy conversation the rows bend, by index.
const (
	exRead = iota
	exSubmit
	exPlan
	exGreet
	exMain
)

const (
	fmSpec = `{"topic":"Say goodbye after the greeting","current":["` + "`main.go`" + ` prints greet.Hello only"],` +
		`"desired":["` + "`greet.Goodbye`" + ` exists and main prints it after the greeting"],` +
		`"files":[{"path":"greet/greet.go","action":"modify","reason":"add Goodbye"},` +
		`{"path":"main.go","action":"modify","reason":"print the goodbye"}]}`
	fmPlan = `{"items":[{"path":"greet/greet.go","action":"modify","reason":"add Goodbye",` +
		`"steps":["Add Goodbye(name string) string returning \"Goodbye, \" + name"],"depends_on":[]},` +
		`{"path":"main.go","action":"modify","reason":"print the goodbye",` +
		`"steps":["After the greeting, print greet.Goodbye(os.Args[1])"],"depends_on":["greet/greet.go"]}]}`
	fmGreetEdit = "<file-edit filePath=\"greet/greet.go\">\n------- SEARCH\nfunc Hello(name string) string {\n\treturn \"Hello, \" + name\n}\n" +
		"=======\nfunc Hello(name string) string {\n\treturn \"Hello, \" + name\n}\n\n// Goodbye says goodbye to name.\n" +
		"func Goodbye(name string) string {\n\treturn \"Goodbye, \" + name\n}\n+++++++ REPLACE\n</file-edit>\n"
	fmMainEdit = "<file-edit filePath=\"main.go\">\n------- SEARCH\n\tfmt.Println(greet.Hello(os.Args[1]))\n=======\n" +
		"\tfmt.Println(greet.Hello(os.Args[1]))\n\tfmt.Println(greet.Goodbye(os.Args[1]))\n+++++++ REPLACE\n</file-edit>\n"
)

// fmStaleGreetEdit is a block whose SEARCH is not in greet.go, and
// fmFixedGreetEdit the same change resent with the file's real text.
const (
	fmStaleGreetEdit = "<file-edit filePath=\"greet/greet.go\">\n------- SEARCH\n// Package greet says hello.\n=======\n" +
		"// Package greet says hello and goodbye.\n+++++++ REPLACE\n</file-edit>\n"
	fmFixedGreetEdit = "<file-edit filePath=\"greet/greet.go\">\n------- SEARCH\n// Package greet greets.\n=======\n" +
		"// Package greet says hello and goodbye.\n+++++++ REPLACE\n</file-edit>\n"
)

var fmTree = map[string]string{
	"go.mod":                 "module example.com/greet\n\ngo 1.22\n",
	"greet/greet.go":         "// Package greet greets.\npackage greet\n\n// Hello greets name.\nfunc Hello(name string) string {\n\treturn \"Hello, \" + name\n}\n",
	"main.go":                "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\n\t\"example.com/greet/greet\"\n)\n\nfunc main() {\n\tfmt.Println(greet.Hello(os.Args[1]))\n}\n",
	"docs/notes.md":          "# Notes\n\nNothing to see.\n",
	".github/issuesmith.yml": "version: 1\nobserver: false\nroles:\n  explorer:\n    max_steps: 8\n",
}

// fmBase is the well-behaved model.
func fmBase() llmtest.Script {
	return llmtest.Script{
		exRead:   llmtest.Call("read_file", `{"path":"greet/greet.go"}`).When(llmtest.Expect{Role: "explorer", Last: "Add a goodbye"}),
		exSubmit: llmtest.Call("submit_spec", fmSpec).When(llmtest.Expect{Role: "explorer", ToolResult: "func Hello(name string) string"}),
		exPlan:   llmtest.Reply(fmPlan).When(llmtest.Expect{Role: "planner", Last: "greet/greet.go"}),
		exGreet:  llmtest.Reply(fmGreetEdit).When(llmtest.Expect{Role: "coder", Last: "# Your item: greet/greet.go (modify)"}),
		exMain:   llmtest.Reply(fmMainEdit).When(llmtest.Expect{Role: "coder", Last: "+func Goodbye(name string) string {"}),
	}
}

// with returns s with exchange i replaced by e (and more inserted after it).
func with(s llmtest.Script, i int, e ...llmtest.Exchange) llmtest.Script {
	out := append(llmtest.Script{}, s[:i]...)
	out = append(out, e...)
	return append(out, s[i+1:]...)
}

// retried is s with first answering the explorer's first request and the
// well-behaved read answering the loop's message about it (containing
// told).
func retried(s llmtest.Script, first llmtest.Exchange, told string) llmtest.Script {
	first.Expect = s[exRead].Expect
	read := s[exRead]
	read.Expect = llmtest.Expect{Role: "explorer", Last: told}
	return with(s, exRead, first, read)
}

func fault(f llmtest.Fault) func(llmtest.Exchange) llmtest.Exchange {
	return func(e llmtest.Exchange) llmtest.Exchange { return e.After(f) }
}

type fmRow struct {
	name   string
	report string // the public report the row plays
	script llmtest.Script
	env    []string
	opts   []llmtest.Option
	// want is what the outcome must say (error text, spec note, item
	// reason); done means the whole plan must be coded.
	want string
	done bool
	// drain is how many scripted exchanges the run leaves for the test to
	// play afterwards (the reply behind a fault that ends the run); each is
	// played with a request made from the exchange's own expectation.
	drain int
	check func(t *testing.T, run fmRun)
	// body replaces the body.
	body string
}

// fmLongBody is an issue with a long log pasted in: a prompt past 1.5k
// tokens, for the silent-truncation row.
var fmLongBody = "The CLI should say goodbye after the greeting.\n\n```\n" +
	strings.Repeat("2026-11-25T10:00:00Z INFO greet: printed greeting for user alice; no goodbye followed\n", 120) + "```\n"

func fmRows() []fmRow {
	b := fmBase
	greetLacks := func(s string) func(t *testing.T, run fmRun) {
		return func(t *testing.T, run fmRun) { assert.NotContains(t, run.file(t, "greet/greet.go"), s) }
	}
	thinking := func(e llmtest.Exchange) llmtest.Exchange { return e.WithReasoning("The issue wants a goodbye.") }
	deepseek := llmtest.Fault{Status: 400, Unless: "reasoning_content",
		Message: "The `reasoning_content` in the thinking mode must be passed back to the API."}
	sig := map[string]any{"extra_content": map[string]any{"google": map[string]any{"thought_signature": "c2lnLTE="}}}
	geminiRead := llmtest.Exchange{Expect: b()[exRead].Expect, Reply: llmtest.Answer{
		ToolCalls: []llmtest.CallSpec{{Name: "read_file", Args: map[string]any{"path": "greet/greet.go"}, Extra: sig}}}}
	sameIndex := llmtest.Calls(llmtest.CallSpec{ID: "o1", Name: "read_file", Args: map[string]any{"path": "greet/greet.go"}},
		llmtest.CallSpec{ID: "o2", Name: "read_file", Args: map[string]any{"path": "main.go"}}).When(b()[exRead].Expect)
	sameIndex.Reply.SameIndex = true
	retries := []string{"ISSUESMITH_MODEL_MAX_RETRIES=3"}
	return []fmRow{
		// Tool calls written as text.
		{name: "explorer writes its tool call as bare JSON", report: "https://github.com/ollama/ollama/issues/12174",
			script: with(b(), exRead, llmtest.Reply(`{"name": "read_file", "arguments": {"path": "greet/greet.go"}}`).When(b()[exRead].Expect)),
			done:   true},
		{name: "explorer writes its tool call in <tool_call> tags", report: "https://github.com/jundot/omlx/issues/2565",
			script: with(b(), exRead, llmtest.Reply("Reading it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"greet/greet.go\"}}\n</tool_call>").When(b()[exRead].Expect)),
			done:   true},
		// Arguments.
		{name: "invalid arguments are never replayed (vLLM re-parses history)", report: "https://github.com/vllm-project/vllm/issues/43995",
			script: with(b(), exRead, llmtest.Call("read_file", `{"path": "greet/greet.go"`).When(b()[exRead].Expect),
				llmtest.Call("read_file", `{"path":"greet/greet.go"}`).When(llmtest.Expect{ToolResult: "not one valid JSON object"})),
			done: true},
		{name: "two glued argument objects are two calls", report: "https://github.com/huggingface/smolagents/pull/1958",
			script: with(b(), exRead, llmtest.Call("read_file", `{"path":"greet/greet.go"}{"path":"main.go"}`).When(b()[exRead].Expect)),
			done:   true},
		{name: "a number written as a string is coerced", report: "https://github.com/invergent-ai/surogate/issues/142",
			script: with(b(), exRead, llmtest.Call("read_file", `{"path":"greet/greet.go","offset":"1","limit":"50"}`).When(b()[exRead].Expect)),
			done:   true},
		{name: "a same-index stream delta with a new id is a new call", report: "https://github.com/apache/maka/issues/1976",
			script: with(b(), exRead, sameIndex), done: true},
		{name: "arguments cut at the output limit are not run", report: "https://github.com/vllm-project/vllm/pull/48922",
			script: retried(b(), llmtest.Call("read_file", `{"path": "greet/gr`).Finish(llm.FinishLength), "cut off at the output limit"),
			done:   true},
		// Reasoning.
		{name: "thinking mode needs reasoning_content back (DeepSeek)", report: "https://github.com/the-open-agent/openagent/issues/2206",
			script: with(with(b(), exRead, thinking(b()[exRead])), exSubmit, thinking(b()[exSubmit]).After(deepseek)),
			done:   true},
		{name: "Gemini 3 needs its thought_signature back", report: "https://github.com/langgenius/dify-official-plugins/issues/2088",
			script: with(with(b(), exRead, geminiRead), exSubmit, b()[exSubmit].After(llmtest.Fault{Status: 400, Unless: "c2lnLTE=",
				Message: "Function call is missing a thought_signature in functionCall parts."})),
			done: true},
		{name: "a closing </think> without its opening tag keeps draft edits out", report: "https://github.com/deepseek-ai/DeepSeek-R1/issues/352",
			script: with(b(), exGreet, llmtest.Reply(strings.Replace(fmGreetEdit, "Goodbye", "Draft", -1)+"Hmm, better name it Goodbye.\n</think>\n\n"+fmGreetEdit).When(b()[exGreet].Expect)),
			done:   true, check: greetLacks("Draft")},
		// Replies that are no answer.
		{name: "a reply cut at the output limit is not a spec", report: "https://github.com/posit-dev/chatlas/issues/327",
			script: retried(b(), llmtest.Reply("The desired behaviour is that main prints").Finish(llm.FinishLength), "cut off at the output limit"),
			done:   true},
		{name: "an empty reply is asked again, never replayed empty", report: "https://github.com/vllm-project/vllm/issues/21089",
			script: retried(b(), llmtest.Reply(""), "Your reply was empty"), done: true},
		{name: "a content-filtered reply is asked again", report: "https://github.com/openai/openai-python/issues/1085",
			script: retried(b(), llmtest.Reply("I").Finish(llm.FinishContentFilter), "content filter"), done: true},
		{name: "a thinking model that spends its budget thinking ends with output_limit", report: "https://github.com/posit-dev/chatlas/issues/327",
			script: llmtest.Script{{Expect: llmtest.Expect{Role: "explorer"}, Reply: llmtest.Answer{Reasoning: "Let me think", Finish: llm.FinishLength}, Repeat: 3}},
			want:   "output_limit"},
		// Endpoint errors that name the fix.
		{name: "Ollama: model does not support tools", report: "https://github.com/ollama/ollama/issues/5793",
			script: llmtest.Script{b()[exRead].After(llmtest.Fault{Status: 400, Message: "registry.ollama.ai/library/gemma3:4b does not support tools"})},
			want:   "ISSUESMITH_MODEL_PROTOCOLS (house-model=text)", drain: 1},
		{name: "vLLM without auto tool choice", report: "https://github.com/vllm-project/vllm/issues/9986",
			script: llmtest.Script{b()[exRead].After(llmtest.Fault{Status: 400, Message: `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`})},
			want:   "ISSUESMITH_MODEL_ROLE_PROTOCOLS (explorer:text)", drain: 1},
		{name: "out of quota is not retried", report: "https://github.com/BerriAI/litellm/issues/10083", env: retries,
			script: llmtest.Script{b()[exRead].After(llmtest.Fault{Status: 429, Code: "insufficient_quota",
				Message: "You exceeded your current quota, please check your plan and billing details."})},
			want: "no quota or credit left", drain: 1},
		// Context.
		{name: "llama.cpp context overflow ends gracefully", report: "https://github.com/ggml-org/llama.cpp/issues/17284",
			script: llmtest.Script{b()[exRead], b()[exSubmit].After(llmtest.Fault{Status: 500, Code: "exceed_context_size_error",
				Message: "the request exceeds the available context size, try increasing it"})},
			want: "context_window", drain: 1},
		{name: "Gemini context overflow ends gracefully", report: "https://github.com/google-gemini/gemini-cli/issues/4118",
			script: llmtest.Script{b()[exRead], b()[exSubmit].After(llmtest.Fault{Status: 400,
				Message: "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576)."})},
			want: "context_window", drain: 1},
		{name: "Ollama's silent truncation is detected", report: "https://github.com/ollama/ollama/issues/3839",
			script: llmtest.Script{b()[exRead].WithUsage(1024, 10, 0)}, body: fmLongBody,
			want: "context_window"},
		// Message order.
		{name: "Mistral-style alternation and no user after tool", report: "https://github.com/zed-industries/zed/issues/37021",
			script: b(), opts: []llmtest.Option{llmtest.WithAlternation()}, done: true},
		// Transport faults (regression rows).
		{name: "429 with Retry-After", report: "https://github.com/BerriAI/litellm/issues/28995", env: retries,
			script: with(b(), exPlan, b()[exPlan].After(llmtest.RateLimit("0"))), done: true},
		{name: "429 with retry-after-ms", report: "https://github.com/openai/openai-python/issues/1085", env: retries,
			script: with(b(), exPlan, b()[exPlan].After(llmtest.Fault{Status: 429, RetryAfterMS: "10"})), done: true},
		{name: "5xx", report: "https://github.com/vxcontrol/pentagi/issues/313", env: retries,
			script: with(b(), exGreet, fault(llmtest.Status(503))(b()[exGreet])), done: true},
		{name: "dropped stream", report: "https://github.com/vllm-project/vllm/issues/27921", env: retries,
			script: with(b(), exSubmit, b()[exSubmit].After(llmtest.Fault{Drop: true})), done: true},
		{name: "stream cut before any answer", report: "https://github.com/vllm-project/vllm/issues/27921", env: retries,
			script: with(b(), exMain, b()[exMain].After(llmtest.Fault{Cut: true})), done: true},
		// The agents' side.
		{name: "a block-less 'let me re-read' after a partial apply is not done", report: "https://github.com/anomalyco/opencode/issues/23065",
			// The coder answers the block-less reply by asking for the
			// refused block again (not with the next item); the model
			// then resends it fixed and only that ends the item.
			script: with(b(), exGreet, llmtest.Reply(fmGreetEdit+fmStaleGreetEdit).When(b()[exGreet].Expect),
				llmtest.Reply("Let me re-read the file.").When(llmtest.Expect{Role: "coder", Last: "not_found"}),
				llmtest.Reply(fmFixedGreetEdit).When(llmtest.Expect{Role: "coder", Last: "Blocks of your earlier answers are still refused"})),
			done: true, check: func(t *testing.T, run fmRun) {
				greet := run.file(t, "greet/greet.go")
				assert.Contains(t, greet, "func Goodbye(name string) string {", "block 1 kept")
				assert.Contains(t, greet, "// Package greet says hello and goodbye.\n", "block 2 applied once fixed")
				it := run.item(t, "greet/greet.go")
				assert.Equal(t, 3, it.Attempts, "done only on the third answer: %v", it.Notes)
				assert.Contains(t, strings.Join(it.Notes, " | "), "attempt 1: block 2 refused (not_found)")
			}},
		{name: "a model error on item 2 keeps item 1", report: "https://github.com/NousResearch/hermes-agent/issues/20154",
			script: with(b(), exMain, b()[exMain].After(llmtest.Fault{Status: 400, Message: "Unexpected role 'user' after role 'tool'"})),
			want:   "stopped by model_error", drain: 1, check: func(t *testing.T, run fmRun) {
				require.NoError(t, run.err, "a model error on one item is the item's outcome, not the run's")
				greet := run.item(t, "greet/greet.go")
				assert.Equal(t, coder.ItemDone, greet.Status)
				assert.Contains(t, run.file(t, "greet/greet.go"), "func Goodbye(name string) string {", "item 1's change is kept")
				main := run.item(t, "main.go")
				assert.Equal(t, coder.ItemFailed, main.Status)
				assert.Contains(t, main.Reason, "Unexpected role 'user' after role 'tool'", "item 2 names the model error")
				assert.Equal(t, fmTree["main.go"], run.file(t, "main.go"))
			}},
		{name: "a cut plan is not asked again whole", report: "https://github.com/posit-dev/chatlas/issues/327",
			script: with(b(), exPlan, llmtest.Reply(fmPlan[:80]).Finish(llm.FinishLength).When(b()[exPlan].Expect),
				llmtest.Reply(fmPlan).When(llmtest.Expect{Role: "planner", Last: "cut off at the output limit"})),
			done: true, check: func(t *testing.T, run fmRun) {
				var asks []string
				for _, r := range run.requests {
					if r.Role == string(llm.RolePlanner) && len(r.Messages) > 2 {
						asks = append(asks, r.Messages[len(r.Messages)-1].Content)
					}
				}
				require.Len(t, asks, 1, "one follow-up after the cut")
				assert.NotContains(t, asks[0], "the whole plan")
				assert.Contains(t, asks[0], "the same items")
				assert.Contains(t, asks[0], "shorter")
			}},
	}
}
