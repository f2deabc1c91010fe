// Package webhook is issuesmith's inbound HTTP side: it verifies GitHub's
// X-Hub-Signature-256 over the raw body, caps the body, parses the event with
// go-github, drops what the bot does not act on (other actions, bot senders
// including itself), records X-GitHub-Delivery and a hash of the body so a
// repeat (or a signed body replayed under a new delivery id) is ignored, checks
// through the API that the sender may write to the repository, and hands a
// typed, authorised Event to a Dispatcher — then answers 202 (200 "ignored"
// when the Dispatcher returns ErrNotQueued: nothing to do).
//
// One file per event turns a payload into an Event. The package never runs
// agent work, never calls the model, never waits on a job, and never writes
// to GitHub: the Dispatcher only enqueues.
package webhook
