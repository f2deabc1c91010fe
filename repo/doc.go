// Package repo owns everything issuesmith does to a repository on disk.
//
// Two halves live here:
//
//   - Workspace: a read-only view of one checkout confined to its root with
//     os.Root. It backs the agents' read tools (list_dir, read_file, grep) and
//     gives other packages (summaries, preagent) the list of files that git
//     would track and a confined raw read. Paths are repo-relative with forward
//     slashes; absolute paths, ".." and symlinks leading out of the root are
//     refused with ErrOutsideRoot, missing paths with ErrNotExist. Both are
//     mistakes a model can fix, so callers turn them into tool results.
//     Its os.Root (Root) is the run's one confined handle: the coder writes
//     through it, so a run opens its worktree once.
//
//   - Git: a clone cache per repository (fetch instead of re-clone), a
//     separate worktree per run, branch, commit and push with an installation
//     token, built on go-git with a git CLI fallback for repositories go-git
//     cannot handle. UseFork points a worktree at a fork (push: fork): the
//     base from the repository, the branch fetched from and pushed to the
//     fork with the fork's token. A mirror is built aside and renamed into
//     place, and one a killed process left unreadable (a cut-short pack or
//     index, an empty ref file: fetching again does not repair those) is
//     fetched again from scratch (SyncStats.Rebuilt says why).
//
// A worktree's git directory lives beside its work tree, never in it, so
// commands run in the tree (sandboxed: the tree alone is bound) can write
// nothing the bot's git reads. Every git the package runs, go-git or the
// command line, starts from HostConfig (no hooks, no fsmonitor, no
// credential helper, no system or user config, https/http only) and names
// its git directory explicitly; the remote is the URL the caller recorded
// (Prepare's, UseFork's), never one read back from a config file. Before
// staging, the tree is vetted as untrusted data (vetTree: any .git and
// special file removed, a link leaving the tree refused with
// ErrUnsafeEntry). A Workspace carries the repository's key by the
// caller's record (SetRepository) for per-repository caches, and reads the
// start commit's files from git (CommittedFile), never from the tree.
//
// This package must never write outside a worktree it created, never follow a
// symlink out of a Workspace, and never let an access token reach a stored
// remote URL, a file, a log line or an error message. It knows nothing about
// GitHub's API, models or prompts.
package repo
