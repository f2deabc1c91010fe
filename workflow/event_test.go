package workflow_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/issuesmith/issuesmith/workflow"
)

func TestParseCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body string
		cmd  workflow.Command
		args string
		ok   bool
	}{
		{"/implement", workflow.CmdImplement, "", true},
		{"  /RETRY now", workflow.CmdRetry, "now", true},
		{"please\n/stop\n/plan", workflow.CmdStop, "", true},
		{"/spec\tx", "", "", false}, // a tab does not separate arguments: /spec\tx is one word
		{"> /stop", "", "", false},
		{"see /plan in the docs", "", "", false},
		{"/planner", "", "", false},
		{"", "", "", false},
	} {
		cmd, args, ok := workflow.ParseCommand(tc.body)
		assert.Equal(t, tc.ok, ok, tc.body)
		assert.Equal(t, tc.cmd, cmd, tc.body)
		assert.Equal(t, tc.args, args, tc.body)
	}
}
