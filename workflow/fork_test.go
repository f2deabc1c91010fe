package workflow_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/issuesmith/issuesmith/workflow"
)

func TestRunBranchIssue(t *testing.T) {
	t.Parallel()
	n, ok := workflow.RunBranchIssue("issuesmith/issue-42")
	assert.True(t, ok)
	assert.Equal(t, 42, n)
	for _, b := range []string{"", "main", "issuesmith/issue-", "issuesmith/issue-0", "issuesmith/issue-42x",
		"issuesmith/issue-042", "issuesmith/issue--1", "xissuesmith/issue-4", "issuesmith/issue-4/x", "issuesmith/issue- 4"} {
		_, ok := workflow.RunBranchIssue(b)
		assert.False(t, ok, b)
	}
}
