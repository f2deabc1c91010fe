package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// TestCrashPushFromFork kills `bot serve` (SIGKILL) at the checkpoints
// push: fork adds or changes — after GitHub made the fork, after the push
// to the fork (the PR lookup by "forkowner:branch"), after the PR from the
// fork was created — restarts it and asserts an uninterrupted run's end:
// one fork, one PR from it, one commit on the fork's branch, nothing on the
// repository's.
func TestCrashPushFromFork(t *testing.T) {
	for _, cp := range []struct{ name, op string }{
		{"after the fork is made, before the bot learned it", "POST /repos/{owner}/{repo}/forks"},
		{"after the push to the fork, before the PR", "GET /repos/{owner}/{repo}/pulls"},
		{"after the PR from the fork is created, before it is stored", "POST /repos/{owner}/{repo}/pulls"},
	} {
		t.Run(cp.name, func(t *testing.T) {
			t.Parallel()
			script := llmtest.LoadScript(t, "testdata/e2e/script.yaml")[:4]
			script[2].Faults = nil
			model := llmtest.NewServer(t, script)
			e := newE2E(t, model.URL())
			fork := e.withForks(forkInst)
			killed := make(chan struct{})
			e.gh.OnServed(cp.op, func(ghtest.Request) bool {
				_ = e.child.Process.Kill() // before the fake answers
				close(killed)
				return true
			})
			e.start()
			require.Equal(t, http.StatusAccepted, e.labelIssue())
			e.waitProgress("waiting for you")
			e.approvePlan(e.botComments()["plan"][0])
			select {
			case <-killed:
			case <-time.After(90 * time.Second):
				t.Fatal("the checkpoint was never reached")
			}
			_ = e.child.Wait()
			e.child = nil
			restarted := time.Now()
			e.start()
			e.waitProgress("issuesmith: done")
			t.Logf("%s: done %s after the restart", cp.name, time.Since(restarted).Round(time.Millisecond))

			// Asking again for a fork GitHub is still making gets the same fork.
			require.Equal(t, e2eOwner+"/"+e2eRepo, e.gh.Parent(forkOwner, e2eRepo))
			require.LessOrEqual(t, e.gh.Calls("POST /repos/{owner}/{repo}/forks"), 2)
			prs := e.gh.PullRequests(e2eOwner, e2eRepo)
			require.Len(t, prs, 1, "one PR")
			require.Equal(t, forkOwner, prs[0].HeadOwner)
			require.Len(t, e.git.Log(t, fork, prs[0].Head), 2, "seed + one commit, on the fork")
			require.Empty(t, e.git.Head(t, e2eOwner+"/"+e2eRepo, prs[0].Head))
			c := e.botComments()
			require.Len(t, c["progress"], 1)
			require.True(t, strings.Contains(c["progress"][0].Body, "pull request #"))
			require.NoError(t, e.stop())
			require.Zero(t, model.Remaining(), "coded once")
		})
	}
}
