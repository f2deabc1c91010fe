// Package lsp asks real language servers for the diagnostics of files the
// coder just wrote: gopls for Go, typescript-language-server (with
// typescript) for TypeScript and JavaScript, pyright-langserver for Python.
//
// A Session belongs to one worktree. It starts at most one server per
// language, lazily, as a child process over stdio with the scrubbed
// environment (internal/procenv), under bubblewrap when the host has it
// (internal/sandbox), and shuts them all down in Close. The JSON-RPC framing
// and the protocol types come from go.lsp.dev/jsonrpc2 and
// go.lsp.dev/protocol. A server that is missing, crashes or does not answer
// in time degrades to "no diagnostics" with one log line: asking never fails.
//
// Diagnostics are read after didOpen/didChange and a settle time with no
// new publication, bounded by a wait limit. New returns only what the
// caller needs for a delta (Errors, and New for the errors an edit added).
// It imports no other issuesmith package but internal/procenv and
// internal/sandbox, and never talks to a model.
package lsp
