// Package giteapoll is the backstop for the deliveries a Gitea (or
// Forgejo) server could not make while the bot was down or unreachable:
// Gitea keeps no delivery log the bot can read and ask to redeliver from
// (GitHub's, redeliver/), so one pass polls what changed since a time and
// hands each request to the same intake a delivery goes to.
//
// For each repository the bot's user can reach (GET /user/repos), a pass:
//   - reads the open issues updated since then and hands on each one's
//     labels as they are now (workflow.LabelsSet: the workflow compares
//     them with the set it saw last, so a label seen before changes nothing);
//   - reads the comments made or edited since then: a person's command, or
//     a person's mention of the bot on the bot's pull request, becomes the
//     event its delivery would have been, under the key its delivery
//     records too (webhook.ObjectKey: a request is handled once, whether it
//     arrived by webhook, by a pass, or both);
//   - reads the commit status of the head of each of the bot's open pull
//     requests, and hands on one that has ended (CI finished: the CI stage
//     is keyed by the head commit, so a repeat does nothing).
//
// Not polled: a plan approved by ticking its box (a comment edit whose
// editor Gitea does not say: tick it again, or comment /implement) and a
// review (its delivery is the only place its request is keyed).
//
// It calls Gitea only through gitea.Client and writes nothing but through
// the Intake; it never runs a stage.
package giteapoll
