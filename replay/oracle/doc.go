// Package oracle is the deterministic "perfect model" of `bot replay
// --model oracle`: an OpenAI-compatible chat-completions server on loopback
// that knows one instance's gold patch and answers the App's agents through
// their real prompts and tools, as a model that knew the fix would. The
// explorer's turns read each gold file that exists (read_file) and then
// submit a spec naming every gold file with its action (submit_spec); the
// observer finds nothing to say; a compression keeps the gold files as
// relevant; the planner answers one JSON item per gold file; the coder
// answers, for the item it is shown, SEARCH/REPLACE blocks cut from the gold
// hunks (git's few lines of context, widened only until the SEARCH text is
// unique in the file) or, for a new file, one block with an empty SEARCH.
//
// It never writes a file and never reads the repository: every byte it
// proposes goes through the edit engine, the guards, gofmt/build/vet and git
// exactly as a real model's answer would, so anything short of resolved
// under the oracle is a defect of the bot's plumbing or a limit it states.
// A rename is written as a delete of the old path and a new file. After a
// report the coder turn resends the gold blocks the report did not list as
// applied (remaining.go), and "done" when none is left; a turn that is not
// about a plan item (a fix round) is answered <no-change>. Limits: a binary
// file in a gold patch cannot be written as a text edit (Fixes reports it
// as an error); a git submodule's pointer (a gitlink) is not the bot's to
// move, so Fixes leaves it out, names it among its limits and the rest of
// the patch is answered; so are a symbolic link, a change of a file's mode
// only, and a file whose only change is its final newline (line edits keep
// a file's final-newline state).
//
// With Task.Faults (bot replay --faults RATE[,SEED]) the oracle misbehaves
// at that share of its explorer, planner and coder turns, chosen by a
// random source seeded with the seed and the issue (faults.go): cut and
// empty replies, reasoning beside or before the answer, tool calls written
// as text, glued or mistyped arguments, a block-less "let me check", a
// stale SEARCH. Its answers are otherwise correct, so the faults measure
// the pipeline's recovery; Stats says what they cost.
//
// Its usage reports cached_tokens as automatic prefix caching counts them
// (llm.PrefixCache: the longest prefix of a request equal to an earlier
// one's in the same instance, in 128-token blocks from 1,024), so replays
// measure how cache-friendly the agents' prompts are; Stats totals prompt,
// cached and completion tokens. The prompt is what providers bill: the tool
// definitions (sent with every call, ahead of the messages, so a changed
// tool list shares no prefix), the messages' text and their tool calls.
//
// Roles are told apart by the X-Issuesmith-Role header the llm client sends
// (llm.RoleHeader) and, for the observer role's two uses, by the system
// prompt (the observer's verdict or a compression's notes).
package oracle
