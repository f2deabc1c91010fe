package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/store/storetest"
)

// Two server processes on one PostgreSQL database share the work of one
// issue: still one spec, one plan, one progress comment and one PR.
func TestEndToEndTwoReplicasOnPostgres(t *testing.T) {
	t.Parallel()
	dsn := storetest.StartPostgres(t).DSN(t)
	script := llmtest.LoadScript(t, "testdata/e2e/script.yaml")
	for i := range script {
		script[i].Faults = nil // no kill in this test: the coder answers at once
	}
	model := llmtest.NewServer(t, script[:4]) // up to the PR; no review here
	e := newE2E(t, model.URL())
	e.env = append(e.env, "ISSUESMITH_DATABASE_URL="+dsn)
	e.start()
	e.startReplica()

	require.Equal(t, http.StatusAccepted, e.labelIssue())
	e.waitProgress("waiting for you")
	plan := e.botComments()["plan"][0]
	e.approvePlan(plan)
	e.waitProgress("issuesmith: done")

	require.Len(t, e.gh.PullRequests(e2eOwner, e2eRepo), 1)
	c := e.botComments()
	for _, kind := range []string{"progress", "spec", "plan"} {
		require.Len(t, c[kind], 1, kind)
	}
	files := e.git.Files(t, e2eOwner+"/"+e2eRepo, "issuesmith/issue-1")
	require.True(t, strings.Contains(files["greet.go"], `return "hello, " + name`), files["greet.go"])
	require.Len(t, e.git.Log(t, e2eOwner+"/"+e2eRepo, "issuesmith/issue-1"), 2)
}
