// Package sandboxtest is what a test that runs commands under the real
// sandbox needs: Need skips it where bubblewrap cannot run, and fails it
// instead when ISSUESMITH_TEST_REQUIRE_BWRAP is set (CI), so the sandbox's
// tests never pass by skipping there.
//
// Of the project it imports only internal/sandbox; the bot's real paths
// must never import it.
package sandboxtest
