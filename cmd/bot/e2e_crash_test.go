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

// crashPoint is where the crash matrix kills `bot serve`: right after the
// fake GitHub served Op (its state changed) and before the answer reaches
// the bot, when Match accepts the request. An empty op kills right after
// the label delivery was answered 202.
type crashPoint struct {
	name  string
	op    string
	match func(e *e2e, r ghtest.Request) bool
}

var crashPoints = []crashPoint{
	{"after the delivery is recorded, before its job ran", "", nil},
	{"after the spec comment is created, before it is stored", "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
		func(_ *e2e, r ghtest.Request) bool {
			return strings.Contains(r.Body, "Greet people by name") && strings.Contains(r.Body, "spec")
		}},
	{"after the push, before the PR (the bot's PR lookup)", "GET /repos/{owner}/{repo}/pulls",
		func(*e2e, ghtest.Request) bool { return true }},
	{"after the PR is created, before it is stored", "POST /repos/{owner}/{repo}/pulls",
		func(*e2e, ghtest.Request) bool { return true }},
	{"after the PR, at a progress comment edit", "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}",
		func(e *e2e, _ ghtest.Request) bool { return len(e.gh.PullRequests(e2eOwner, e2eRepo)) == 1 }},
}

// TestCrashMatrix kills `bot serve` (SIGKILL) at each checkpoint in turn,
// restarts it on the same database and asserts the end state of an
// uninterrupted run: one spec, one plan, one progress comment saying done,
// one PR, one commit on the branch — within a bounded time after restart.
func TestCrashMatrix(t *testing.T) {
	for _, cp := range crashPoints {
		t.Run(cp.name, func(t *testing.T) {
			t.Parallel()
			script := llmtest.LoadScript(t, "testdata/e2e/script.yaml")[:4]
			script[2].Faults = nil // no hang: the kill comes from the fake GitHub
			model := llmtest.NewServer(t, script)
			e := newE2E(t, model.URL())
			killed := make(chan struct{})
			e.gh.OnServed(cp.op, func(r ghtest.Request) bool { // never called for op ""
				if !cp.match(e, r) {
					return false
				}
				_ = e.child.Process.Kill() // before the fake answers: the bot never learns it happened
				close(killed)
				return true
			})
			e.start()
			require.Equal(t, http.StatusAccepted, e.labelIssue())
			if cp.op == "" {
				_ = e.child.Process.Kill()
				close(killed)
			}
			approved := false
			approve := func() {
				c := e.botComments()
				require.Len(t, c["plan"], 1)
				e.approvePlan(c["plan"][0])
				approved = true
			}
			deadline := time.After(90 * time.Second)
		wait:
			for {
				select {
				case <-killed:
					break wait
				case <-deadline:
					t.Fatal("the checkpoint was never reached")
				case <-time.After(25 * time.Millisecond):
					if !approved && strings.Contains(e.progress(), "waiting for you") {
						approve()
					}
				}
			}
			_ = e.child.Wait()
			e.child = nil
			restarted := time.Now()
			e.start()
			if !approved {
				e.waitProgress("waiting for you")
				approve()
			}
			e.waitProgress("issuesmith: done")
			t.Logf("%s: done %s after the restart", cp.name, time.Since(restarted).Round(time.Millisecond))

			c := e.botComments()
			require.Len(t, c["spec"], 1, "one spec")
			require.Len(t, c["plan"], 1, "one plan")
			require.Len(t, c["progress"], 1, "one progress comment")
			prs := e.gh.PullRequests(e2eOwner, e2eRepo)
			require.Len(t, prs, 1, "one PR")
			require.Equal(t, "issuesmith/issue-1", prs[0].Head)
			log := e.git.Log(t, e2eOwner+"/"+e2eRepo, prs[0].Head)
			require.Len(t, log, 2, "seed + one commit")
			files := e.git.Files(t, e2eOwner+"/"+e2eRepo, prs[0].Head)
			require.Equal(t, "package greet\n\n// Hello returns a greeting.\nfunc Hello(name string) string {\n\treturn \"hello, \" + name\n}\n", files["greet.go"])
		})
	}
}
