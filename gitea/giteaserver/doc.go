// Package giteaserver starts a real Gitea server for tests: the binary
// .ci/run builds from code.gitea.io/gitea v1.26.0 (ISSUESMITH_GITEA_BIN, or
// gitea on PATH), on loopback with SQLite in the test's temporary
// directory, its webhooks allowed to reach loopback. Start makes the
// site administrator; User makes a user and an access token with the
// scopes asked (through Gitea's own CLI, as an operator would); the rest
// goes through Gitea's API (gitea.Client).
//
// Without the binary the test is skipped, unless ISSUESMITH_REQUIRE_GITEA=1
// (CI), where it fails. It is linked only into tests, never into the bot.
package giteaserver
