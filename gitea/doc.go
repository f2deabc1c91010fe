// Package gitea is the bot's REST client for a Gitea server's API v1
// (Gitea 1.26; Forgejo keeps the same API): the calls the Gitea adapter
// makes — the server's version and the bot user, repositories and raw
// files, issues with their comments, labels and reactions, pull requests
// with their reviews and review comments, commit statuses, collaborator
// permissions, webhooks and Actions job logs — in its own small types
// (types.go, field names and JSON tags from Gitea's modules/structs).
//
// A Client is made once per server and token (New) and is safe for
// concurrent use; every call takes its own context. Requests go over
// ghapp.NewTransport (writes spaced, 5xx retried with backoff, 429 and
// Retry-After waited out or returned as *ghapp.RateLimitError); lists follow
// Gitea's pages (page, limit, Link and X-Total-Count) up to Options.MaxPages.
// Gitea's refusals come back as *Error (its message kept): errors.Is(err,
// ErrNotFound) for 404 and ErrForbidden for 401 and 403 (a token missing a
// scope says which in the message). The token is sent only in the
// Authorization header and never appears in an error or a log.
//
// gitea never imports the workflow or go-github, and never runs git: the
// adapter (workflow/giteaport) maps these types onto the workflow's ports,
// and repo/ moves the code. giteatest is its fake server for tests.
package gitea
