package sandboxtest

import (
	"os"
	"testing"

	"github.com/issuesmith/issuesmith/internal/sandbox"
)

// RequireVar, when set, turns a missing sandbox into a failure.
const RequireVar = "ISSUESMITH_TEST_REQUIRE_BWRAP"

// Need skips t when sandboxed commands cannot run on this host
// (sandbox.Check), or fails it when RequireVar is set.
func Need(t testing.TB) {
	t.Helper()
	if err := sandbox.Check(); err != nil {
		if os.Getenv(RequireVar) != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}
