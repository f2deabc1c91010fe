// Package planner owns the plan: it turns a preagent.Spec into per-file items
// with ordered, concrete steps in dependency order (through the model), renders
// the spec and plan comments as GitHub Markdown, and parses comments that
// people edited back into a Spec or Plan, naming the exact line it cannot read.
//
// planner never touches the repository, never posts to GitHub and never
// decides approval on its own: it only reports whether the "approve and
// implement" box is ticked. Rendering and parsing are pure functions.
package planner
