// Package archtest holds no code: its test checks the import rules that the
// project's doc.go contracts state (a leaf imports nothing of ours, an agent
// never imports another, a test fake is never linked into the bot, the
// workflow's core imports neither GitHub's client nor SQL) against
// what `go list` reports, and that each contract still states its rule, so
// a doc.go and the code cannot drift apart unnoticed.
//
// It imports nothing; its test runs the go command.
package archtest
