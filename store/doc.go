// Package store owns issuesmith's database: a SQLite file by default (pure Go,
// WAL, busy timeout) or PostgreSQL when given a postgres:// URL; the versioned
// migrations for both dialects; the River job queue on the same database; and
// the tables the product needs: webhook deliveries (dedupe), runs (one
// issue's journey: stage, state, comment ids, branch, PR, tokens, cost), step
// checkpoints that make every workflow step idempotent, per-issue leases
// (one run per issue at a time), the file-summary cache keyed by blob hash
// and the usage ledger (usage.go: one row per model call, reserved at its
// worst case before the call and charged after; sums per run, repository
// and installation window; the report `bot usage` prints) and the known
// repositories (known_repos.go: noted when a run opens, forgotten when the
// installation goes). The unique states of every job kind are defined once
// (unique.go).
// A Tx (Queue.InTx) puts run writes, the insert of a job and the completion
// of the running one in one transaction; a run's save is a compare-and-swap
// on its version. On SQLite (one writer, one connection) concurrent
// deliveries (Queue.Accept) commit in groups, each in its own savepoint
// (intake_batch.go), and the WAL is checkpointed by a second connection in
// the background, never in a writer's commit (checkpoint.go).
//
// It must never call GitHub, git or a model, and never log secrets: a DSN
// with a password is reported only without it.
package store
