// Package ghapp is issuesmith's outbound side of GitHub: the App and its
// installation clients (tokens from ghinstallation, cached and refreshed),
// and the few REST operations the workflow needs — comments found and updated
// by a hidden marker, reactions, labels, collaborator permission checks, pull
// requests, review-thread replies and file contents.
//
// Every request goes through one http.RoundTripper per installation that
// honours GitHub's primary and secondary rate limits (Retry-After,
// X-RateLimit-Reset), spaces writes, and retries 5xx answers with backoff.
//
// ghapp never decides anything about an issue's journey (that is workflow/),
// never reads the environment (that is config/), and never puts a private key
// or token into an error, a log line or a comment.
package ghapp
