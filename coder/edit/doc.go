// Package edit is issuesmith's edit engine: it parses the edit formats a model
// writes (SEARCH/REPLACE blocks in <file-edit> tags or under a path line and a
// code fence, Codex patches, unified diffs, lazy "... existing code ..."
// snippets, whole-file content and checked line ranges in <replace-lines> /
// <remove-lines> tags), locates each block in the files under a
// root directory with a cascade of ever looser but always unique matches, and
// applies them while keeping every byte outside the match, the line endings,
// the final-newline state, a BOM and the file mode. A byte that is not UTF-8
// is compared as U+FFFD, as JSON carried it to the model, and lines the model
// copies or changes around it keep the file's byte. An empty SEARCH and
// REPLACE create an empty file (a package marker); a new file that starts
// with "#!" is made executable.
//
// It owns parsing, matching, indentation re-basing, atomic writes confined to
// the root (os.Root: Apply opens one, ApplyIn uses the caller's) and the
// typed feedback that explains a refusal to the model. It must never guess:
// a block is applied only where its text occurs exactly once at the first
// matching level; line hints only choose between candidates and similarity
// scores only explain refusals. Line ranges are the one exception to
// matching: they are applied at their numbers (bottom up, before the other
// blocks), and only when the lines there are the ones the model quoted or
// hashed. It never writes
// outside the root, never imports another issuesmith package, and never talks
// to a model or the network.
package edit
