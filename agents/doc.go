// Package agents runs issuesmith's agents on a worktree with a repository's
// settings, the one way for every caller: `bot serve` (through the
// workflow's ports: Explorer, Planner, Coder, Summarizer and Git are
// implemented here), `bot solve` and `bot replay` (through Local, which
// runs explorer → spec → planner → plan → coder on a local worktree, as the
// App's stages do, and returns what each stage produced).
//
// It owns the mapping from a repository's .github/issuesmith.yml to each
// agent's options (ExplorerOptions, PlannerOptions, CoderOptions: the
// coder's checks, setup and egress within the server's ceiling), the
// model client per repository (Models), the spend of each agent (returned
// with its error too), and the git worktrees of the bot (tokens, the
// commit author and co-authors from the installation's forge through
// Credentials: AppCredentials for the GitHub App, the server's own for a
// Gitea server; tokens go to git only; each worktree opens its confined
// repo.Workspace once, the one the agent ports are given, and closes it
// with itself).
//
// The models Models gives, the explorer's and coder's tools, the
// explorer's compressions and observer notes and the coder's edits and
// checks are recorded in the session the call's context carries
// (session.With; session.go), if any: the workflow puts one there.
//
// Entry point for a local run (bot replay):
//
//	ws, _ := repo.OpenWorkspace(dir)            // the one confined view of the worktree
//	cfg, _ := agents.RepoConfig(ws)             // .github/issuesmith.yml, or the defaults
//	out, err := (&agents.Local{Model: model, Repo: cfg}).Run(ctx, ws, issue)
//	// out.Spec, out.Plan, out.Code (*coder.Result), out.Stages (wall time each)
//
// agents decides nothing about an issue's journey (that is workflow/), never
// answers HTTP, and never reads the environment (cmd/bot passes config in).
package agents
