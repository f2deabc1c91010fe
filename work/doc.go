// Package work owns the documents that pass between the agents and the
// people who steer them: the Spec (what the explorer found must change) and
// the Plan (per-file items with ordered steps), their validation, and their
// GitHub Markdown form — the spec and plan comments rendered with a hidden
// marker and parsed back after people edited them, naming the exact line it
// cannot read.
//
// It also owns the one progress vocabulary (event.go): an Event of one of
// a few kinds, told to a Progress, is how every agent and long job reports
// while it runs — the explorer its steps, compressions and observer calls,
// the coder each plan item's start and outcome (folded into the items'
// status list by Apply, the list the workflow's progress comment shows),
// the code index its counts, agents.Local and `bot try` their stages,
// `bot replay` its instances. No package has a progress callback of its
// own shape.
//
// The explorer (preagent) writes a Spec, the planner turns it into a Plan and
// the coder carries the Plan out; each imports work and none imports another
// agent. work is pure: no model calls, no repository, no GitHub client, and it
// never decides approval on its own — it only reports whether the "approve
// and implement" box is ticked.
package work
