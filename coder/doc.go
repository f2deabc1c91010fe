// Package coder turns an approved plan into a validated change set: for each
// plan item (one file) it prompts the model with the spec, the item's steps,
// the file's content and the edits already made in the run, applies the
// model's edit blocks through coder/edit, feeds refusals back for a bounded
// number of attempts, and validates the result (tree-sitter syntax guard with
// rollback, gofmt, go vet/go build of touched packages, a byte-compile and
// pyflakes' error checks of changed .py files, optional repository check
// commands). Revise applies a review comment the same way.
//
// A repository's setup (Options.Setup, setup.go, setup_run.go) comes
// before the first checks: its Debian packages are checked on the host
// with dpkg-query (never installed; a missing one is named with the
// apt-get line, and the setup commands and repository checks are then not
// run), and its commands run once per run in the sandbox, in a virtual
// environment kept with the repository's caches when the egress allows a
// package index (the checks then run in it too); without one, a pip
// install is reported as needing egress. The Python checks (pychecks.go)
// run with python3 -I, in the sandbox only, and guess no test command.
//
// An item is done only when every block applied or, after a partial apply,
// on an explicit <chat>done</chat>; it is skipped only on an explicit
// <no-change> (in review and CI-fix rounds also on prose that declines, but
// never on prose holding fenced code or announcing a step). A reply cut at
// the output limit is never applied, reasoning (<think>, or text before a
// lone </think>) never reaches the engine, blocks written beside a tool call
// are applied with the call, the report after an applied edit quotes the
// changed regions' new text (regions.go), and maxFormatErrors replies in a
// row without a usable edit fail the item with the reason (turns.go). A
// full context window cuts the conversation back to a fresh prompt once;
// a second overflow fails the item with context_window.
//
// With Options.ApplyModel, a lazy sketch or SEARCH block still refused on an
// item's last attempt goes to a second model (llm.RoleApply) with only the
// region the engine located (apply_region.go: the nearest text, else the
// enclosing function; a sketch's anchors); its rewrite is kept only when a
// whole-file diff shows no change outside the region, nothing outside is
// re-created, a SEARCH block's rewrite changes only what it quotes, the
// syntax guard passes and no new diagnostic appears (apply_check.go,
// applymodel.go).
//
// The coder owns the per-file retry loop, the validation pipeline, the
// blocked-path policy and the change set (files, unified diff, per-item
// status, token use, PR summary). It reports each plan item's start and
// outcome as it goes (Options.Progress, work.EventItem events), and reads and writes only
// through the workspace's one confined root (repo.Workspace.Root), which it
// also hands to the edit engine (edit.ApplyIn). Its sandboxed commands
// (go build/vet, checks, language servers) get the caches of the
// workspace's repository as the caller recorded it (Workspace.Repository)
// and may have downloaded only the module versions the start commit's
// go.mod and go.sum name or the allowlist covers (sandbox.Policy's Repo and
// TrustedModules): nothing in the tree chooses either.
//
// It must never write outside the workspace, outside the approved plan's
// files, through a symbolic link, to a blocked path or into a git
// submodule (a plan item naming one is blocked with why; the edit engine
// refuses a block there with edit.ReasonSubmodule) whatever the model asks, never run repository commands (checks or setup) unless Options.RunCommands is set,
// never run anything a sandboxed command wrote (the virtual environment
// included) on the host, never install a package,
// never pass the bot's environment (keys, tokens) to a command, and never
// commit, push or talk to GitHub: the caller does that with the change set
// it returns.
package coder
