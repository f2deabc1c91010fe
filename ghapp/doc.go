// Package ghapp is issuesmith's outbound side of GitHub: the App and its
// installation clients (tokens from ghinstallation, cached and refreshed),
// and the few REST operations the workflow needs — comments found and updated
// by a hidden marker (its format and Defuse live in internal/ghtext), reactions, labels, collaborator permission checks, pull
// requests, review-thread replies and file contents. manifest*.go registers
// the App itself: app.yml read as a GitHub App manifest, the manifest flow's
// local page and callback (ManifestFlow), and the code exchange
// (CompleteManifest) that hands back the App's id, webhook secret and key.
// forks.go serves `push: fork`: the App's installation on the fork owner's
// account, and that account's fork of a repository, made when missing.
// checks.go serves the CI fix loop: a commit's check runs and their
// annotations, Actions job logs (GitHub's redirect to the log is fetched
// without the installation token, which must never reach the storage
// host), and MarkReady, the one GraphQL call (REST cannot un-draft a PR).
//
// Every request goes through one http.RoundTripper per installation that
// spaces writes, retries 5xx answers with backoff, and applies the one
// rate-limit rule (ratelimit.go): a 403 or 429 that is GitHub's primary
// limit (X-RateLimit-Remaining 0, X-RateLimit-Reset) or a secondary one
// (Retry-After, or GitHub's documented message) is sat out only when short
// (MaxWait, within the request's deadline); otherwise the call returns a
// *RateLimitError saying until when, never GitHub's answer as a failure.
// RateLimitOf finds it, and go-github's own rate-limit errors, in one shape.
// The same transport paces the installation (pace.go): it tracks the
// primary (REST core) limit from every answer's X-RateLimit-* headers,
// counting requests in flight, and once the remaining requests fall to the
// reserve (Reserve: 2% of the limit, at least MinReserve) it sends only
// requests whose context is marked WithReserve, down to the last one; any
// other is held back unsent as a *RateLimitError (Held) until the reset,
// so a caller's job stops before GitHub has to refuse it and the reserve
// is left for saying so. The App's own token requests, GraphQL and search
// (limits of their own) are not paced.
//
// ghapp never decides anything about an issue's journey (that is workflow/),
// never reads the environment (that is config/), and never puts a private key
// or token into an error, a log line or a comment.
package ghapp
