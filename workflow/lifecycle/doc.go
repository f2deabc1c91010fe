// Package lifecycle is the run's life, decided without doing anything: its
// stages and their order, its states, where a /retry or a resumed run
// picks up, and the one function that moves a run — Transition, from a
// Status and an Outcome to the next Status. It is pure: no database, no
// forge, no clock; the workflow asks it what a stage's result means and
// then saves and posts what it answered (decide, save, post).
//
// It must never import anything of this module: the workflow and its
// adapters import it, never the other way round.
package lifecycle
