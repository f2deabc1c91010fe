// Package planner turns a work.Spec into a work.Plan through the model:
// per-file items with ordered, concrete steps, in dependency order, with one
// correction round when the model's reply is unusable. When the model
// gives no valid plan, or its server refuses the request for the model's
// sake, the error is an *llm.ModelFailure (the model, not the spec or the
// issue, failed). The spec and plan comments (render and parse) live in
// package work.
//
// planner never touches the repository, never posts to GitHub and never
// decides approval.
package planner
