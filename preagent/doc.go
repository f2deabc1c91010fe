// Package preagent owns the explorer: the "current thinking" agent that reads
// an issue and a repository one action at a time (open a folder, open a file
// window, preview an outline, search, grep) until it can say which files must
// change and how. It also owns the explorer's compression of explored history,
// the observer role that watches the trajectory, the issue-text cleaner, the
// loading of repository guidance (AGENTS.md and friends) and the preview of
// the files an issue names (named.go: paths, path:line, stack frames and
// backticked symbols resolved against the search index, never guessed). Its
// output is a work.Spec; a run that ends without submit_spec (after at most
// maxNudges requests for it) gives a partial spec whose note names why —
// unless the model is why and no file was found (prose or unrunnable calls
// every turn, cut or looping replies, a context overflow): that run is an
// *llm.ModelFailure error, never a spec asking the author which
// files to look at; the loop's placeholders never become spec text.
//
// Messages it adds to the conversation (the observer's note, the
// compression record, a nudge) join the previous tool result or user
// message rather than follow it, and an empty reply is never replayed:
// strict providers refuse a user message after tool results, two user
// messages in a row and empty assistant messages.
//
// Before a compression drops turns, the explorer's own model judges the
// files those turns read, asked at the end of its own conversation
// (llm.State.Aside) so that a provider's prompt cache serves the whole
// conversation and only the question is new; a failed or unreadable answer
// falls back to deterministic verdicts.
//
// preagent never writes to the repository, never talks to GitHub and never
// reads configuration from the environment: it reads the workspace through
// the confined repo.Workspace and talks to the model only through llm.Model.
// Text from issues and repository files is untrusted: it is cleaned and
// delimited before it reaches a prompt, and it never selects tools or paths
// outside the workspace.
package preagent
