// Package llm is how every agent talks to the model: the Model port, a
// Client for any OpenAI-compatible endpoint (go-openai; streaming with
// tool-call reassembly, reasoning kept apart, usage, retries with backoff
// and Retry-After, a non-streaming fallback), tools with schemas generated
// from params structs, the one agent loop (Agent.Run) with typed stop
// reasons and budgets, the text action protocol for models without tool
// calling, offline token counting and a usage/cost Ledger. A Gate in the
// Config (gate.go; package budget implements it) is asked before every call
// whether the call's worst case (its prompt counted locally plus its
// maximum completion) fits the spending limits, and is charged what the
// call used; a refused call is never sent (ErrSpendLimit).
//
// Real models and servers misbehave; the loop and the client absorb it at
// this layer: a reply cut at the output limit, refused, filtered or empty
// is never a final answer (StopOutputLimit, StopNoAction after a bounded
// run); tool calls written as text are taken as calls; invalid arguments
// are repaired or answered with an error and never replayed; glued calls
// are split and string-typed numbers coerced to the tool's schema;
// reasoning is kept out of the answer (<think> tags included) and sent back
// to models that need it; every request is made valid for strict servers
// (hygiene in client_wire.go); context overflow, silent truncation, quota
// and missing tool support are named errors. The context window is read
// where each server states it (window.go: vLLM, Ollama, llama.cpp;
// window_lmstudio.go: LM Studio's loaded_context_length) and travels in
// Response.Window and State.Window for the roles to size their
// compression; a prompt the server cut without an error (Ollama's num_ctx,
// LM Studio's rolling window) is caught by its counts in the client and
// the loop (truncation.go, ErrTruncated) and its reply never used. Calls
// written as text are read in the shapes models write (textcalls_shapes.go:
// Hermes and Qwen3-Coder tags, Mistral's [TOOL_CALLS], Llama's
// <|python_tag|>, gpt-oss harmony, DeepSeek's <｜tool▁call▁begin｜>, fenced
// or after a sentence), with invented ids of 9 alphanumerics; arguments
// sent as a JSON object are turned into the string go-openai reads
// (client_args.go); every tool-call id goes on the wire as nine
// alphanumerics (wireID: a stable hash of any other id, such as
// llama-server's 32-character ones); a turn of several calls goes as one
// assistant message per call to a model whose template refused it
// (client_calls.go: Llama 3.x's "only supports single tool-calls at
// once"; gpt-oss by name, whose template drops the rest silently), and
// tool turns go as text to one whose template knows no tool role
// (Gemma's, Mistral Small's). With no completion cap set, each role sends
// its default (caps.go, DefaultMaxTokens), lowered to fit a stated window
// and to the cap a server names when it refuses the default. A repetition
// loop is cut as soon as it shows (repetition.go, StopRepetition). A run the model or server ended — not
// the task — is an *ModelFailure (failure.go, ErrModelFailed) naming what
// the model did and the setting to change (StopFailure for the loop's
// stops; ErrMaxTokens and ErrTemplate from the client, never retried); the
// roles return it instead of asking the author anything, and the
// loop's placeholders (IsPlaceholder) are never a role's text. A 429 without
// Retry-After waits for x-ratelimit-reset-*, and a wait of 3 s or more is
// logged with what it waits for. AnswerText is the one rule for
// reasoning left in a reply's text; the roles use it. Agent.Reminder ends
// every request with the role's reply form, never kept in the history.
// Config.CacheMarks adds cache_control breakpoints to the stable prefix
// (cache_marks.go) for endpoints that cache only what is marked.
//
// It must never import other issuesmith packages (internal/clip and
// internal/redact, leaves, are the exceptions), read environment
// variables or log prompts, keys or replies above Debug. Model-fixable
// mistakes (unknown tool, bad arguments) are tool results; only our own
// failures are Go errors.
//
// Typical use by an agent role:
//
//	client, err := llm.NewClient(cfg) // cfg from the server config; cfg.Validate names bad settings
//	if err != nil { return err }
//
//	type readParams struct {
//		Path string `json:"path" desc:"repo-relative file path"`
//		From int    `json:"from,omitempty" desc:"first line, 1-based"`
//	}
//	read := llm.NewTool("read_file", "Read a window of a file.",
//		func(ctx context.Context, p readParams) (llm.ToolResult, error) {
//			text, err := ws.ReadFile(ctx, repo.ReadFileParams{Path: p.Path, From: p.From})
//			if errors.Is(err, repo.ErrNotExist) {
//				return llm.ErrorResult("%v", err), nil // the model can fix this
//			}
//			return llm.ToolResult{Content: text}, err
//		})
//
//	agent := &llm.Agent{
//		Role:   llm.RoleExplorer,
//		Model:  ledger.Track(runID, client), // usage per run and role
//		Tools:  []llm.Tool{read},
//		Budget: llm.Budget{MaxSteps: 30, MaxTokens: 200_000, MaxWall: 10 * time.Minute},
//	}
//	out, err := agent.Run(ctx, []llm.Message{{Role: llm.System, Content: prompt}, {Role: llm.User, Content: issue}})
//	// out.Reason: finished, step_limit, token_budget, ..., out.Messages holds what was gathered.
//
// Tests drive the same code through the real client against llm/llmtest.
package llm
