// Package store owns issuesmith's database: a SQLite file by default (pure Go,
// WAL, busy timeout) or PostgreSQL when given a postgres:// URL; the versioned
// migrations for both dialects; the River job queue on the same database; and
// the tables the product needs: webhook deliveries (dedupe), runs (one
// issue's journey: stage, state, comment ids, branch, PR, tokens, cost), step
// checkpoints that make every workflow step idempotent, per-issue leases
// (one run per issue at a time) and the file-summary cache keyed by blob hash.
//
// It must never call GitHub, git or a model, and never log secrets: a DSN
// with a password is reported only without it.
package store
