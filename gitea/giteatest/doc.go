// Package giteatest is a stateful fake of Gitea 1.26's REST API (API v1,
// which Forgejo keeps) for fast tests, served on loopback by httptest, as
// ghapp/ghtest is for GitHub. It keeps users with their tokens and scopes,
// repositories (default branch, branches, raw files, the clone URL the test
// passes: git itself is a real http-backend from repo/gittest), issues with
// labels, comments and reactions, pull requests (a draft by the "WIP:" or
// "[WIP]" title prefix, as Gitea decides it), reviews with review comments
// and review requests, commit statuses, collaborator permissions, webhooks
// and Actions job logs; and a polling pass's lists (handlers_poll.go): the
// caller's repositories (GET /user/repos: owned or collaborated), a
// repository's issues (state, type, since, labels) and its comments on
// issues and pull requests (since), in pages, with updated times on
// Options.Now's clock that move as Gitea moves them (a comment or a label
// moves its issue; an edit moves only the comment).
//
// Every request is validated against Gitea's own swagger description
// (testdata/gitea-1.26.0.pruned.json, cut from templates/swagger/v1_json.tmpl
// of code.gitea.io/gitea@v1.26.0 by testdata/prune, converted to OpenAPI 3
// with kin-openapi's openapi2conv): an unknown operation, a bad parameter or
// body fails the test that owns the fake, besides Gitea's error answer; every
// JSON answer the fake gives is checked against the documented response.
// Tokens are checked the way Gitea checks them: "Authorization: token …",
// and each route's scope category (issue, repository, user; both user
// and repository for /user/repos) at read level for GET and write level
// otherwise, refused with Gitea 1.26's 403 message naming the scope. Permission answers only to an admin, a repository
// admin, or a user asking about itself; hooks only to repository admins.
// Faults are injected with Inject (5xx for the next N calls, 429 with
// Retry-After: RateLimit); DeleteIssue makes the issue 404 (and, as on
// Gitea 1.26, its comments 500). Wait checks a condition after each request
// served, never on a timer. Deliver posts a webhook delivery signed as
// Gitea 1.26 signs it (Forgejo's X-Forgejo-* headers too on request).
// Beside a real git server (git.go): SetRefResolver reads the branches
// from it (a pull request opened from a pushed branch, its head moving on
// a push) and CanPush is Gitea's rule for a token as git's password.
// EditComment is a person's edit in the web page, CloseIssue a person
// closing an issue; Issue, Comments (with their edits), Pulls (Draft by
// the title) read the state back.
//
// giteatest is for tests: it never talks to the network and never
// implements more of Gitea than package gitea calls. The bot's real paths
// must never import it.
package giteatest
