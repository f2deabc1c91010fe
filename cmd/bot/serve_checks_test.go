package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/config"
)

// A repository's run_commands runs its checks on the bot's machine only when
// the server allows it (ISSUESMITH_ALLOW_CHECK_COMMANDS); the checks are
// still passed on, so turning the switch on needs no other change.
func TestRepositoryChecksNeedTheServersConsent(t *testing.T) {
	t.Parallel()
	rc, err := config.ParseRepo([]byte("version: 1\nrun_commands: true\nchecks:\n  - name: t\n    run: go test ./...\n"))
	require.NoError(t, err)
	o := (&coderAgent{}).options(rc)
	require.False(t, o.RunCommands, "the server did not allow check commands")
	o = (&coderAgent{allowChecks: true}).options(rc)
	require.True(t, o.RunCommands)
	require.Equal(t, []string{"go test ./..."}, o.CheckCommands)
}
