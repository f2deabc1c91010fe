package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/llm/llmtest"
	"github.com/issuesmith/issuesmith/workflow"
)

const (
	forkOwner = "issuesmith-forks"
	forkInst  = 77
)

// withForks sets `bot serve` to push to forks owned by the organization
// forkOwner, where the App has installation inst (0: not installed), and
// makes the fork's git repository GitHub would copy when asked.
func (e *e2e) withForks(inst int64) string {
	fork := forkOwner + "/" + e2eRepo
	e.git.Fork(e.t, e2eOwner+"/"+e2eRepo, fork)
	e.gh.AddAccount(ghtest.Account{Login: forkOwner, Org: true, Installation: inst, ForkDelay: 1,
		CloneURL: func(name string) string { return e.git.RepoURL(forkOwner + "/" + name) }})
	e.env = append(e.env, "ISSUESMITH_PUSH=fork", "ISSUESMITH_FORK_OWNER="+forkOwner)
	return fork
}

// With ISSUESMITH_PUSH=fork the bot forks the repository into the fork
// owner's organization (as that installation), pushes its branch there and
// nowhere else, opens the PR on the repository from "forkowner:branch",
// and a review comment's follow-up commit lands on the fork too. The git
// server takes each installation's tokens for its own repositories only.
func TestEndToEndPushFromFork(t *testing.T) {
	t.Parallel()
	script := llmtest.LoadScript(t, "testdata/e2e/script.yaml")[:5]
	script[2].Faults = nil
	model := llmtest.NewServer(t, script)
	e := newE2E(t, model.URL())
	fork := e.withForks(forkInst)
	upstream := e2eOwner + "/" + e2eRepo
	e.start()
	require.Equal(t, http.StatusAccepted, e.labelIssue())
	e.waitProgress("waiting for you")
	e.approvePlan(e.botComments()["plan"][0])
	e.waitProgress("issuesmith: done")

	require.Equal(t, upstream, e.gh.Parent(forkOwner, e2eRepo), "the fork was made of the repository")
	require.Equal(t, 1, e.gh.Calls("POST /repos/{owner}/{repo}/forks"))
	prs := e.gh.PullRequests(e2eOwner, e2eRepo)
	require.Len(t, prs, 1)
	pr := prs[0]
	require.Equal(t, forkOwner, pr.HeadOwner, "the PR is opened from the fork")
	require.Equal(t, "main", pr.Base)
	branch := pr.Head
	require.Empty(t, e.git.Head(t, upstream, branch), "nothing pushed to the repository")
	log := e.git.Log(t, fork, branch)
	require.Len(t, log, 2, "the seed + the PR's commit, on the fork")
	require.Equal(t, e.git.Head(t, upstream, "main"), log[1].Hash, "based on the repository's main")
	require.Contains(t, e.git.Files(t, fork, branch)["greet.go"], "func Hello(name string)")

	const ask = "@issuesmith use a capital H in the greeting"
	rc := e.gh.AddReviewComment(e2eOwner, e2eRepo, pr.Number, ghtest.ReviewComment{User: e2eUser, Path: "greet.go", Line: 5, Body: ask})
	require.Equal(t, http.StatusAccepted, e.deliver("pull_request_review_comment", "pull_request_review_comment.created.json",
		e.reviewComment(pr.Number, branch, rc, ask, e2eUser, "User")))
	var reply ghtest.ReviewComment
	e.await(90*time.Second, func() bool {
		if r := e.botReplies(pr.Number, rc); len(r) > 0 {
			reply = r[0]
			return true
		}
		return false
	}, "the review comment got no reply")
	log = e.git.Log(t, fork, branch)
	require.Len(t, log, 3, "the follow-up commit is on the fork")
	require.Contains(t, reply.Body, "Done in "+log[0].Hash)
	require.Contains(t, e.git.Files(t, fork, branch)["greet.go"], `return "Hello, " + name`)
	require.Empty(t, e.git.Head(t, upstream, branch), "still nothing pushed to the repository")
	require.Len(t, e.gh.PullRequests(e2eOwner, e2eRepo), 1)
	require.NoError(t, e.stop())
	require.Zero(t, model.Remaining())
}

// Without the App on the fork owner's account the run stops before the
// coder, its progress comment says where to install the App and nothing is
// pushed anywhere; once the App is installed there, /retry carries on and
// the PR comes from the fork.
func TestEndToEndPushFromForkNotInstalled(t *testing.T) {
	t.Parallel()
	script := llmtest.LoadScript(t, "testdata/e2e/script.yaml")[:4]
	script[2].Faults = nil
	model := llmtest.NewServer(t, script)
	e := newE2E(t, model.URL())
	fork := e.withForks(0)
	e.start()
	require.Equal(t, http.StatusAccepted, e.labelIssue())
	e.waitProgress("waiting for you")
	e.approvePlan(e.botComments()["plan"][0])
	e.waitProgress("not installed")
	progress := e.progress()
	require.Contains(t, progress, forkOwner+": install it there", progress)
	require.Contains(t, progress, "comment `/retry`")
	require.NotContains(t, progress, "**Branch:**", "no branch holds anything")
	require.NotContains(t, progress, "ghs_", "no token in the comment")
	require.Zero(t, e.gh.Calls("POST /repos/{owner}/{repo}/forks"))
	require.Empty(t, e.gh.PullRequests(e2eOwner, e2eRepo))
	branch := fmt.Sprintf("issuesmith/issue-%d", e.issue)
	require.Empty(t, e.git.Head(t, e2eOwner+"/"+e2eRepo, branch))
	require.Equal(t, 2, model.Remaining(), "the coder was never asked")

	e.gh.AddAccount(ghtest.Account{Login: forkOwner, Org: true, Installation: forkInst,
		CloneURL: func(name string) string { return e.git.RepoURL(forkOwner + "/" + name) }})
	id := e.gh.AddComment(e2eOwner, e2eRepo, e.issue, e2eUser, "/retry")
	require.Equal(t, http.StatusAccepted, e.deliver("issue_comment", "issue_comment.created.json", func(p map[string]any) {
		obj(p, "issue")["number"] = e.issue
		cm := obj(p, "comment")
		cm["id"], cm["body"] = id, "/retry"
		obj(cm, "user")["login"], obj(cm, "user")["type"] = e2eUser, "User"
	}))
	e.waitProgress("issuesmith: done")
	prs := e.gh.PullRequests(e2eOwner, e2eRepo)
	require.Len(t, prs, 1)
	require.Equal(t, forkOwner, prs[0].HeadOwner)
	require.Len(t, e.git.Log(t, fork, branch), 2)
	require.Empty(t, e.git.Head(t, e2eOwner+"/"+e2eRepo, branch))
	require.NoError(t, e.stop())
	require.Zero(t, model.Remaining())
}

// The CI fix loop on a pull request from the fork: GitHub names no pull
// request in CI events for a fork's branch, so the Actions workflow run's
// head branch leads to the run; the fix commit lands on the fork.
func TestEndToEndPushFromForkCIFix(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.LoadScript(t, "testdata/e2e/ci.yaml"))
	e := newE2E(t, model.URL())
	fork := e.withForks(forkInst)
	upstream := e2eOwner + "/" + e2eRepo
	e.gh.SetFile(e2eOwner, e2eRepo, "main", workflow.RepoConfigPath,
		[]byte("version: 1\ndraft: true\nci:\n  fix_rounds: 2\n  ready_when_green: true\n"))
	e.gh.SetRefResolver(func(owner, name, ref string) string { return e.git.Head(t, owner+"/"+name, ref) })
	e.start()
	require.Equal(t, http.StatusAccepted, e.labelIssue())
	e.waitProgress("waiting for you")
	e.approvePlan(e.botComments()["plan"][0])
	e.waitProgress("issuesmith: done")
	pr := e.gh.PullRequests(e2eOwner, e2eRepo)[0]
	require.Equal(t, forkOwner, pr.HeadOwner)
	head, base := e.git.Head(t, fork, pr.Head), e.git.Head(t, upstream, "main")

	// The pull_request workflow runs in the repository, on the fork's commit.
	e.gh.AddCheckRun(e2eOwner, e2eRepo, ghtest.CheckRun{HeadSHA: head, Name: "test", Conclusion: "failure",
		Title: "go test failed", Log: ciLog})
	e.gh.AddCheckRun(e2eOwner, e2eRepo, ghtest.CheckRun{HeadSHA: base, Name: "test", Conclusion: "success", Log: "ok\n"})
	workflowRun := func(sha, conclusion string) {
		require.Equal(t, http.StatusAccepted, e.deliver("workflow_run", "workflow_run.completed.json", func(p map[string]any) {
			wr := obj(p, "workflow_run")
			wr["head_sha"], wr["head_branch"], wr["conclusion"], wr["event"] = sha, pr.Head, conclusion, "pull_request"
			wr["pull_requests"] = []any{} // as GitHub sends it for a fork's branch
			obj(wr, "head_repository")["full_name"] = fork
			r := obj(p, "repository") // the example's is octo-org/octo-repo
			r["name"], r["full_name"], obj(r, "owner")["login"] = e2eRepo, upstream, e2eOwner
		}))
	}
	workflowRun(head, "failure")
	body := e.waitCI(pr.Number, "pushed")
	log := e.git.Log(t, fork, pr.Head)
	require.Len(t, log, 3, "seed + the PR's commit + one CI fix, on the fork")
	require.True(t, strings.HasPrefix(log[0].Message, "Fix CI: test"), log[0].Message)
	require.Contains(t, body, "→ pushed "+log[0].Hash)
	require.Empty(t, e.git.Head(t, upstream, pr.Head), "nothing pushed to the repository")

	fixed := log[0].Hash
	e.gh.AddCheckRun(e2eOwner, e2eRepo, ghtest.CheckRun{HeadSHA: fixed, Name: "test", Conclusion: "success", Log: "ok\n"})
	workflowRun(fixed, "success")
	e.waitCI(pr.Number, "CI passed on "+fixed[:7])
	require.NoError(t, e.stop())
	require.Zero(t, model.Remaining())
}
