// Package edit is issuesmith's edit engine: it parses the edit formats a model
// writes (SEARCH/REPLACE blocks in <file-edit> tags or under a path line and a
// code fence, Codex patches, unified diffs, lazy "... existing code ..."
// snippets and whole-file content), locates each block in the files under a
// root directory with a cascade of ever looser but always unique matches, and
// applies them while keeping every byte outside the match, the line endings,
// the final-newline state, a BOM and the file mode.
//
// It owns parsing, matching, indentation re-basing, atomic writes confined to
// the root (os.Root: Apply opens one, ApplyIn uses the caller's) and the
// typed feedback that explains a refusal to the model. It must never guess:
// a block is applied only where its text occurs exactly once at the first
// matching level; line hints only choose between
// candidates and similarity scores only explain refusals. It never writes
// outside the root, never imports another issuesmith package, and never talks
// to a model or the network.
package edit
