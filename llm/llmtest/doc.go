// Package llmtest is a scripted OpenAI-compatible chat completions server
// on loopback, for testing agents through the real llm.Client (and so the
// real go-openai client, HTTP and SSE).
//
// A Script is an ordered list of exchanges: what the next request must
// look like (agent role, last message, tool results, offered tools) and the
// reply to give (text, reasoning, tool calls, usage), optionally after
// injected faults (429 with Retry-After, 5xx, hangs, malformed bodies,
// dropped connections). A request that does not match fails the test and
// prints what was asked; exchanges left unplayed fail it at cleanup.
//
// Scripts live as YAML files under a package's testdata/:
//
//	# testdata/read_then_answer.yaml
//	- expect: {role: explorer, last: "fix the crash"}
//	  reply:
//	    tool_calls:
//	      - {name: read_file, args: {path: main.go}}
//	- expect: {tool_result: "package main"}
//	  reply: {content: "done", usage: {prompt: 120, completion: 8}}
//
// and are played like this:
//
//	srv := llmtest.NewServer(t, llmtest.LoadScript(t, "testdata/read_then_answer.yaml"))
//	client, err := llm.NewClient(srv.Config()) // BaseURL: srv.URL(), model "test", retries without sleeping
//	require.NoError(t, err)
//	agent := &llm.Agent{Role: llm.RoleExplorer, Model: client, Tools: tools}
//	out, err := agent.Run(t.Context(), msgs)
//	// assert on out and on srv.Requests()
//
// Small scripts can be built in Go:
//
//	llmtest.Script{
//		llmtest.Call("read_file", `{"path":"main.go"}`).When(llmtest.Expect{Role: "explorer"}),
//		llmtest.Reply("done").WithUsage(100, 5, 0),
//	}
//
// An exchange can repeat its reply (repeat: n, Times in Go), send
// finish_reason per reply (length, content_filter), raw provider fields
// (refusal, extra on the message or on a call, such as Gemini's
// extra_content; usage with reasoning tokens or total_tokens only), and
// faults served only while the request lacks some text (unless:), which
// plays DeepSeek's "reasoning_content must be passed back" and Gemini's
// thought_signature rules.
//
// The server is strict by default: a request whose history breaks a rule
// real providers enforce (tool-call arguments that are not JSON, a user
// message right after a tool message, an empty assistant message, a tool
// call id never answered or a tool message for an unknown id; with
// WithAlternation also two user messages in a row) fails the test and is
// answered 400 with that provider's own message (strict.go cites the public
// reports). Lenient() turns this off for a test that sends such a history
// on purpose.
//
// The start-up probe's requests (llm.ProbeHeader) are answered by the
// server itself with a well-formed call, outside the script (Probes lists
// them), unless the next exchange expects one (probe: true).
//
// The inference servers' own endpoints answer 404, as a hosted API does,
// unless an option plays that server (engines.go, each in the shape its
// documentation gives): WithOllama (POST /api/show, GET /api/ps, and with
// Truncate Ollama's dropping of the oldest messages past num_ctx, reported
// in prompt_tokens), WithLlamaCpp (GET /props), WithVLLM (max_model_len
// in GET /v1/models) and WithLMStudio (lmstudio.go: GET /api/v0/models,
// and with Truncate its rolling window's dropping of the oldest messages).
//
// Requests sent concurrently (summary workers) match a group of exchanges
// marked any_order: true (llmtest.Unordered in Go) in whatever order they
// arrive.
//
// Outside tests only `bot try` (package trydemo) uses it, through a
// tb.Session, to play the demo's scripted conversation; the bot's real
// paths (serve, solve, replay) must never import it.
package llmtest
