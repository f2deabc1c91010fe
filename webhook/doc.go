// Package webhook is issuesmith's inbound HTTP side: it verifies GitHub's
// X-Hub-Signature-256 over the raw body, caps the body, parses the event with
// go-github, drops what the bot does not act on (other actions, bot senders
// including itself), records X-GitHub-Delivery and a hash of the body so a
// repeat (or a signed body replayed under a new delivery id) is ignored, checks
// through the API that the sender may write to the repository, and hands an
// authorised workflow.Event to its Consumer (*workflow.Engine) — then answers
// 202 (200 "ignored" when the Consumer returns workflow.ErrIgnored).
//
// One file per event turns a go-github payload into a workflow.Event: the
// workflow owns the event vocabulary (kinds, commands, the command parser),
// the webhook only fills it in. The package never runs agent work, never
// calls the model, never waits on a job, and never writes to GitHub: the
// Consumer only enqueues.
package webhook
