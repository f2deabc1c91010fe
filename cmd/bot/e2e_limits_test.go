package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
)

// nowEnv sets the clock of the server process's spending windows
// (server.Tuning.Now), RFC 3339.
const nowEnv = "ISSUESMITH_E2E_NOW"

// TestEndToEndRunLimitMidCoder: a run whose coder spends the run's limit
// on its first item stops there: the second item's model call is never
// sent, the done item is pushed to the run's branch, no pull request is
// opened, and the progress comment names the limit, what was spent and how
// to go on. The repository's file asked for more than the server allows:
// it got the server's ceiling, and the comment says so.
func TestEndToEndRunLimitMidCoder(t *testing.T) {
	t.Parallel()
	model := scriptedModel(t, "testdata/e2e/limits.yaml")
	e := newE2E(t, model.URL())
	e.gh.SetFile(e2eOwner, e2eRepo, "main", ".github/issuesmith.yml", []byte("version: 1\nlimits:\n  run_tokens: 90000\n"))
	e.env = append(e.env, "ISSUESMITH_LIMIT_RUN_TOKENS=30000", "ISSUESMITH_MODEL_MAX_COMPLETION_TOKENS=500")
	e.start()
	require.Equal(t, http.StatusAccepted, e.labelIssue())
	e.waitProgress("waiting for you")
	require.Contains(t, e.progress(), "**Limits:** `limits.run_tokens` asks for 90,000; the server's ceiling of 30,000 (ISSUESMITH_LIMIT_RUN_TOKENS) applies")
	e.approvePlan(e.botComments()["plan"][0])
	e.waitProgress("issuesmith: stopped")

	progress := e.progress()
	require.Contains(t, progress, "Stopped at this run's token limit: 30,000 tokens, 52,350 tokens spent by this run; the next model call needed up to")
	require.Contains(t, progress, "Comment `/retry` to go on with a new run (a new run budget), or raise `limits.run_tokens`")
	require.Contains(t, progress, "`greet.go` — ✅ done")
	require.Contains(t, progress, "**Branch:** `issuesmith/issue-1` holds what was done.")
	require.Zero(t, model.Remaining())
	for _, r := range model.Requests() {
		require.NotContains(t, r.Last().Content, "# Your item: greet_test.go", "the call past the limit was sent")
	}
	require.Len(t, model.Requests(), 3)
	files := e.git.Files(t, e2eOwner+"/"+e2eRepo, "issuesmith/issue-1")
	require.Contains(t, files["greet.go"], "func Hello(name string) string {")
	require.NotContains(t, files, "greet_test.go")
	require.Empty(t, e.gh.PullRequests(e2eOwner, e2eRepo))

	// The counters, scraped from /metrics.
	metrics := e.get("/metrics")
	inst := fmt.Sprint(e.gh.Installation())
	for _, want := range []string{
		`issuesmith_spend_tokens_total{installation="` + inst + `",kind="prompt",model="test-model",repo="Codertocat/Hello-World",role="coder"} 50000`,
		`issuesmith_spend_tokens_total{installation="` + inst + `",kind="completion",model="test-model",repo="Codertocat/Hello-World",role="explorer"} 150`,
		`issuesmith_spend_cost_total{installation="` + inst + `",model="test-model",repo="Codertocat/Hello-World",role="planner"} 0.00128`,
		`issuesmith_spend_left{kind="tokens",scope="Codertocat/Hello-World",window="repo_day"} 4.994765e+07`,
	} {
		require.Contains(t, metrics, want)
	}
	require.NoError(t, e.stop())
}

// TestEndToEndInstallationDaySpent: issue 1 takes the installation's day
// past 80% (its progress comment says so) and then spends it; issue 2 is
// refused before any model call with a comment saying when the window
// opens; after midnight UTC its /retry is served.
func TestEndToEndInstallationDaySpent(t *testing.T) {
	t.Parallel()
	model := scriptedModel(t, "testdata/e2e/window.yaml")
	e := newE2E(t, model.URL())
	e.env = append(e.env, "ISSUESMITH_LIMIT_INSTALLATION_DAY_TOKENS=45000", "ISSUESMITH_MODEL_MAX_COMPLETION_TOKENS=500",
		nowEnv+"=2026-11-25T20:00:00Z")
	e.start()
	require.Equal(t, http.StatusAccepted, e.labelIssue())
	e.waitProgress("waiting for you")
	require.Contains(t, e.progress(), "**Limits:** The installation's daily token limit is 89% spent: 40,150 tokens of 45,000 tokens.")

	e.issue = e.gh.AddIssue(e2eOwner, e2eRepo, ghtest.Issue{Title: "Say goodbye", Body: "Add Goodbye().", User: e2eUser,
		Labels: []string{"issuesmith"}})
	require.Equal(t, http.StatusAccepted, e.labelIssue())
	e.waitProgress("issuesmith: stopped")
	require.Contains(t, e.progress(), "Stopped at the installation's daily token limit: 45,000 tokens, 45,250 tokens spent since 00:00 UTC. "+
		"Comment `/retry` after 2026-11-26 00:00 UTC (in 4h0m0s), or ask the bot's operator to raise `ISSUESMITH_LIMIT_INSTALLATION_DAY_TOKENS`.")
	require.Len(t, model.Requests(), 2, "issue 2 was refused before any model call")

	e.kill()
	e.env = append(e.env, nowEnv+"=2026-11-26T00:30:00Z")
	e.start()
	id := e.gh.AddComment(e2eOwner, e2eRepo, e.issue, e2eUser, "/retry")
	require.Equal(t, http.StatusAccepted, e.deliver("issue_comment", "issue_comment.created.json", func(p map[string]any) {
		obj(p, "issue")["number"] = e.issue
		cm := obj(p, "comment")
		cm["id"], cm["body"] = id, "/retry"
		obj(cm, "user")["login"], obj(cm, "user")["type"] = e2eUser, "User"
	}))
	e.waitProgress("waiting for you")
	require.Zero(t, model.Remaining())
	require.False(t, strings.Contains(e.progress(), "**Limits:**"), "a new day starts under 80%")
	require.NoError(t, e.stop())
}
