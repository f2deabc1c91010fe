// Package giteaport is the workflow's Gitea adapter: workflow.GitHub (the
// forge port, named after its first forge) over a *gitea.Client for a
// Gitea or Forgejo server, where the bot acts as a user with an access
// token.
//
// What Gitea 1.26 lacks is answered in Gitea's own terms, never faked:
// a draft pull request is the "WIP: " title prefix (MarkReady removes
// it); CI is the commit's statuses (each a completed or running check, its
// description as the summary; no annotations); a review comment's thread
// is answered in the pull request's conversation, quoting it (replies in
// a thread come with 1.27); comments are found by the marker in their
// body, and only the bot user's count. A person's write permission is
// asked of the collaborator permission endpoint, which Gitea answers only
// to a repository administrator: the bot user must be one (bot setup
// --forge gitea checks it).
//
// It has no policy of its own and imports no go-github, ghapp client or
// store; gitea's sentinels become the workflow's (errors.go), a rate limit
// the workflow's RateLimitError.
package giteaport
