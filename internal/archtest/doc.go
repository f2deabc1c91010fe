// Package archtest holds no code: its tests check what the project's doc.go
// contracts state and a machine can check. The import rules (a leaf imports
// nothing of ours, an agent never imports another, a test fake is never
// linked into the bot, the workflow's core imports neither GitHub's client
// nor SQL, a pure package imports no I/O, a package that must never call
// GitHub, git or a model imports none of their clients) against what `go
// list` reports, and that each contract still states its rule
// (imports_test.go); that only config reads the environment, but for the
// places env_test.go names with their reasons; and that every Go file a
// doc.go or CONTRIBUTING.md names exists (files_test.go). So a doc.go and the
// code cannot drift apart unnoticed.
//
// It imports nothing; its tests run the go command and parse the sources.
package archtest
