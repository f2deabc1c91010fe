// Package cievidence turns a pull request's failed CI into evidence a coder
// can act on: which checks are the bot's to fix, what they said, and the few
// log lines that matter.
//
// Given the check runs of a PR's head commit (and of its base commit), Decide
// says whether CI has finished and which failures are new with the PR: a check
// that also fails on the base commit is not the bot's. Cut reduces a GitHub
// Actions job log to its failing steps and the lines that explain them (Go
// test failures, compiler errors, panics, ##[error] lines) with a little
// context. Render builds the whole evidence under a byte cap, with every
// token-shaped string redacted (internal/redact) and every piece of repository text fenced as
// untrusted, so it can go into a prompt or a comment as it is. Signature
// names a failure (check + first failing lines, normalised) so a loop can
// stop when the same failure comes back after a fix.
//
// Logs and check output are written by the repository's workflows, so they
// are untrusted input: nothing here follows, evaluates or fetches anything
// they say. The package is pure string handling: no I/O, no network.
package cievidence
