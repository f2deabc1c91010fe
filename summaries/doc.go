// Package summaries owns code intelligence over one checkout: per-file
// outlines (tree-sitter for Go, Python, JavaScript, TypeScript, Java, Rust, C
// and C++; universal-ctags or a line-based fallback for the rest), imports and
// the import graph (Go, Python, JavaScript/TypeScript), one-line file
// summaries (from a model when one is configured, cached by git blob hash
// through Cache; outline-only otherwise), incremental refresh and a cron
// schedule for it, the ranked file search the explorer and `bot search`
// use (BM25F, the explicit pointers, the import graph and Go
// packages, every signal explained per hit), and a snapshot of the index
// (Save, Load) so a later search parses only the files changed since.
//
// It reads files only through the Source it is given (a repo.Workspace in
// production), never writes to the checkout, never talks to GitHub, and never
// sends a file to a model except to summarise it.
package summaries
