// Package planner turns a work.Spec into a work.Plan through the model:
// per-file items with ordered, concrete steps, in dependency order, with one
// correction round when the model's reply is unusable. The spec and plan
// comments (render and parse) live in package work.
//
// planner never touches the repository, never posts to GitHub and never
// decides approval.
package planner
