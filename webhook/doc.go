// Package webhook is issuesmith's inbound HTTP side. A Limiter in front
// bounds the request-body bytes in flight (503 + Retry-After past the
// budget). The handler refuses a request without a well-formed
// X-Hub-Signature-256 before reading its body, reads the body once under
// the size cap while computing the HMAC, parses the event with go-github,
// drops what the bot does not act on (other actions, bot senders including
// itself and the accounts Options.Bots lists; 400 for a signed payload lacking what its route reads), and
// hands the workflow.Event on. It never calls GitHub: for the kinds that
// start or steer work it sets Event.CheckWrite, and the intake job asks
// GitHub whether the sender may write (where a rate limit only delays it),
// so a delivery is recorded, or held, before any call to GitHub and
// answered within GitHub's 10 s whatever GitHub's limits say.
//
// Through its Intake (*workflow.Engine) the delivery's id key (IDKey), the
// body's hash key and the event's intake job are one transaction: a
// delivery is either fully accepted (202) or not recorded at all. When the
// database cannot record a delivery, Options.Hold keeps it on
// disk (held.go, internal/spool) and it is answered 202 "held"; Drain
// records it through the same Intake once the database answers, so a
// delivery held twice, or also redelivered, is recorded once. Without a
// Holder, or with the spool full, the answer is 503 (GitHub's redelivery,
// or the reconciler's, is then handled). A held delivery may be recorded
// after deliveries that arrived later (GitHub does not promise an order
// either). A repeat of the id or of a signed body under a new id is found
// by the recording transaction and answered 200 duplicate.
//
// One file per event turns a go-github payload into a workflow.Event: the
// workflow owns the event vocabulary (kinds, commands, the command parser),
// the webhook only fills it in. CI events (ci.go: check_run, check_suite,
// workflow_run completed) need no permission check: GitHub sends them
// whoever started the CI, and the workflow acts only on the bot's own pull
// requests. The package never runs agent work, never
// calls the model, never waits on a job, and never writes to GitHub.
package webhook
