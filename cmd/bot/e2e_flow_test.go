package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/issuesmith/issuesmith/ghapp/ghtest"
	"github.com/issuesmith/issuesmith/llm/llmtest"
)

// editPlan is the person's edit of the plan comment: the third greet.go
// step removed, the second reworded, the approve box ticked.
func editPlan(t *testing.T, body string) string {
	t.Helper()
	for _, s := range []string{"- Log every greeting to stderr\n", "Return hello followed by the name", "- [ ] **Approve and implement**"} {
		require.Contains(t, body, s)
	}
	body = strings.Replace(body, "- Log every greeting to stderr\n", "", 1)
	body = strings.Replace(body, "Return hello followed by the name", `Return "hello, " + name`, 1)
	return strings.Replace(body, "- [ ] **Approve and implement**", "- [x] **Approve and implement**", 1)
}

// approvePlan makes the person's edit (editPlan) of the plan comment on the
// fake GitHub and delivers the issue_comment.edited event GitHub sends for it
// (the comment is the bot's own: the edit's sender is the person).
func (e *e2e) approvePlan(plan ghtest.Comment) {
	e.t.Helper()
	edited := editPlan(e.t, plan.Body)
	e.gh.EditComment(plan.ID, edited)
	require.Equal(e.t, http.StatusAccepted, e.deliver("issue_comment", "issue_comment.edited.json", func(p map[string]any) {
		obj(p, "issue")["number"] = e.issue
		cm := obj(p, "comment")
		cm["id"], cm["body"] = plan.ID, edited
		obj(cm, "user")["login"], obj(cm, "user")["type"] = e.gh.BotLogin(), "Bot"
		p["changes"] = map[string]any{"body": map[string]any{"from": plan.Body}}
	}))
}

func TestEndToEndLabelToPRWithRestartAndReview(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.LoadScript(t, "testdata/e2e/script.yaml"))
	e := newE2E(t, model.URL())
	e.start()

	// Label → spec, plan and progress comments; the run waits for approval.
	require.Equal(t, http.StatusAccepted, e.labelIssue())
	e.waitProgress("waiting for you")
	c := e.botComments()
	require.Len(t, c["spec"], 1)
	require.Len(t, c["plan"], 1)
	require.Contains(t, c["spec"][0].Body, "Greet people by name")
	plan := c["plan"][0]

	// The person edits the plan and ticks the box.
	e.approvePlan(plan)

	// The coder's first model request hangs; the process is killed there
	// (SIGKILL, no shutdown) and started again on the same database.
	require.Eventually(t, func() bool {
		reqs := model.Requests()
		return len(reqs) >= 3 && reqs[len(reqs)-1].Role == "coder"
	}, 60*time.Second, 20*time.Millisecond, "the coder never asked the model")
	e.kill()
	e.start()
	e.waitProgress("issuesmith: done")

	// Exactly one PR, as the workflow promises.
	prs := e.gh.PullRequests(e2eOwner, e2eRepo)
	require.Len(t, prs, 1)
	pr := prs[0]
	require.Equal(t, "issuesmith/issue-1", pr.Head)
	require.Equal(t, "main", pr.Base)
	require.True(t, pr.Draft)
	require.Equal(t, "Greet people by name", pr.Title)
	require.Contains(t, pr.Body, "Fixes #1")
	require.Contains(t, pr.Body, `  - Return "hello, " + name`)
	require.NotContains(t, pr.Body, "Log every greeting")
	require.Equal(t, []string{e2eUser}, pr.Reviewers)

	// The branch in the real git server holds exactly what the scripted
	// coder wrote from the edited plan, in one commit on top of main.
	name := e2eOwner + "/" + e2eRepo
	files := e.git.Files(t, name, pr.Head)
	require.Equal(t, "package greet\n\n// Hello returns a greeting.\nfunc Hello(name string) string {\n\treturn \"hello, \" + name\n}\n", files["greet.go"])
	require.Contains(t, files["greet_test.go"], `if got := Hello("Ada"); got != "hello, Ada" {`)
	log := e.git.Log(t, name, pr.Head)
	require.Len(t, log, 2, "seed + one commit, even though coding started twice")
	require.Contains(t, log[0].Author, e.gh.BotLogin())

	// The coder saw the edited plan, not the original.
	var coderPrompts []string
	for _, r := range model.Requests() {
		if r.Role == "coder" {
			coderPrompts = append(coderPrompts, r.Last().Content)
		}
	}
	require.Len(t, coderPrompts, 3, "greet.go twice (hung, then after the restart), greet_test.go once")
	for _, p := range coderPrompts {
		require.NotContains(t, p, "Log every greeting")
	}

	// No duplicate comments after the restart; the trigger label is reset.
	c = e.botComments()
	require.Len(t, c["progress"], 1)
	require.Len(t, c["spec"], 1)
	require.Len(t, c["plan"], 1)
	require.Contains(t, c["progress"][0].Body, "#2")
	require.Contains(t, c["progress"][0].Body, "  - `greet.go` — ✅ done\n  - `greet_test.go` — ✅ done\n", "the plan items' states")
	is, _ := e.gh.Issue(e2eOwner, e2eRepo, e.issue)
	require.NotContains(t, is.Labels, "issuesmith")

	// A review comment mentioning the bot → a follow-up commit and a reply.
	rc := e.gh.AddReviewComment(e2eOwner, e2eRepo, pr.Number, ghtest.ReviewComment{User: e2eUser, Path: "greet.go", Line: 5,
		Body: "@issuesmith use a capital H in the greeting"})
	require.Equal(t, http.StatusAccepted, e.deliver("pull_request_review_comment", "pull_request_review_comment.created.json",
		e.reviewComment(pr.Number, pr.Head, rc, "@issuesmith use a capital H in the greeting", e2eUser, "User")))
	var reply ghtest.ReviewComment
	e.await(60*time.Second, func() bool {
		if r := e.botReplies(pr.Number, rc); len(r) > 0 {
			reply = r[0]
			return true
		}
		return false
	}, "no reply in the review thread")
	log = e.git.Log(t, name, pr.Head)
	require.Len(t, log, 3)
	require.Contains(t, reply.Body, "Done in "+log[0].Hash)
	require.Contains(t, e.git.Files(t, name, pr.Head)["greet.go"], `return "Hello, " + name`)

	// A submitted review mentioning the bot → a commit over the PR's files
	// and a reply in the conversation.
	convReply := e.submitReview(pr, "@issuesmith say Hi instead of Hello")
	log = e.git.Log(t, name, pr.Head)
	require.Len(t, log, 4)
	require.Contains(t, convReply, "Done in "+log[0].Hash)
	require.Contains(t, e.git.Files(t, name, pr.Head)["greet.go"], `return "Hi, " + name`)

	// Every commit of the run credits the person who asked for it, in
	// GitHub's noreply form (user id + login).
	trailer := regexp.MustCompile(`(?m)^Co-authored-by: ` + e2eUser + ` <\d+\+` + e2eUser + `@users\.noreply\.github\.com>$`)
	for _, c := range log[:3] {
		require.Regexp(t, trailer, c.Message)
	}

	// Metrics saw it all.
	body := e.get("/metrics")
	for _, want := range []string{
		`issuesmith_webhook_deliveries_total{event="pull_request_review_comment",result="dispatched"} 1`,
		`issuesmith_jobs_total{outcome="ok",stage="revise"} 2`,
		`issuesmith_model_tokens_total{kind="prompt",role="coder"} 3100`,
		`issuesmith_github_api_calls_total{method="POST",status="201"}`,
		"issuesmith_github_rate_limit_remaining",
	} {
		require.Contains(t, body, want)
	}

	// The PR merged: the progress comment says so and links it.
	e.gh.ClosePR(e2eOwner, e2eRepo, pr.Number, true)
	require.Equal(t, http.StatusAccepted, e.deliver("pull_request", "pull_request.closed.json", func(p map[string]any) {
		po := obj(p, "pull_request")
		po["number"], po["merged"] = pr.Number, true
		obj(po, "user")["login"], obj(po, "user")["type"] = e.gh.BotLogin(), "Bot"
		obj(p, "sender")["login"] = e2eUser
	}))
	e.waitProgress("pull request #" + strconv.Itoa(pr.Number) + " was merged by " + e2eUser)

	t.Logf("progress comment:\n%s\nPR #%d %q (draft=%v, head %s):\n%s\nreview reply: %s",
		e.progress(), pr.Number, pr.Title, pr.Draft, pr.Head, pr.Body, reply.Body)

	// SIGTERM: the process stops taking work and exits cleanly.
	require.NoError(t, e.stop())
	e.mu.Lock()
	logs := e.logs.String()
	e.mu.Unlock()
	require.Contains(t, logs, "shutting down: no new deliveries")
	require.True(t, strings.HasSuffix(strings.TrimSpace(logs), "msg=stopped"), "the last log line says stopped")

	// Git got the fake GitHub's installation tokens and nothing else (every
	// push went through: three commits on the branch), and no token is in a
	// log line, a comment or a stored file (remotes, git config, database).
	require.Zero(t, e.git.AuthFailures(), "git requests without a valid installation token")
	require.GreaterOrEqual(t, e.git.Pushes(), int64(3))
	e.assertTokensNowhere(logs, e.dir)
}

// submitReview delivers a submitted review of the bot's PR with body text
// and waits for the bot's reply in the PR conversation.
func (e *e2e) submitReview(pr ghtest.PullRequest, text string) string {
	e.t.Helper()
	require.Equal(e.t, http.StatusAccepted, e.deliver("pull_request_review", "pull_request_review.submitted.json", func(p map[string]any) {
		po := obj(p, "pull_request")
		po["number"] = pr.Number
		obj(po, "user")["login"], obj(po, "user")["type"] = e.gh.BotLogin(), "Bot"
		obj(po, "head")["ref"] = pr.Head
		obj(p, "review")["body"], obj(p, "review")["state"] = text, "changes_requested"
	}))
	var reply string
	e.await(60*time.Second, func() bool {
		for _, c := range e.gh.Comments(e2eOwner, e2eRepo, pr.Number) {
			if c.User == e.gh.BotLogin() && strings.Contains(c.Body, "> @"+e2eUser+": "+text) {
				reply = c.Body
				return true
			}
		}
		return false
	}, "no reply to the review in the conversation")
	return reply
}

func (e *e2e) get(path string) string {
	e.t.Helper()
	resp, err := http.Get("http://" + e.addr + path)
	require.NoError(e.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(e.t, err)
	return string(b)
}

func TestEndToEndModelKeepsFailing(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		http.Error(w, `{"error":{"message":"the model is overloaded","type":"server_error"}}`, http.StatusInternalServerError)
	}))
	t.Cleanup(failing.Close)
	e := newE2E(t, failing.URL+"/v1")
	e.start()

	// Refused or ignored before any work: a forged signature, a sender
	// without write access, the bot itself.
	label := func(sender, typ string) func(p map[string]any) {
		return func(p map[string]any) {
			obj(p, "issue")["number"] = e.issue
			obj(p, "label")["name"] = "issuesmith"
			obj(p, "sender")["login"], obj(p, "sender")["type"] = sender, typ
		}
	}
	require.Equal(t, http.StatusUnauthorized, e.deliverAs("issues", "issues.labeled.json", "forged-1", "not-the-secret", label(e2eUser, "User")))
	e.gh.SetPermission(e2eOwner, e2eRepo, "drive-by", "read")
	// A reader's label is recorded (202) before any call to GitHub; its
	// intake job asks GitHub and starts nothing.
	require.Equal(t, http.StatusAccepted, e.deliverAs("issues", "issues.labeled.json", "read-only-1", e2eSecret, label("drive-by", "User")))
	require.Equal(t, http.StatusOK, e.deliverAs("issues", "issues.labeled.json", "bot-1", e2eSecret, label(e.gh.BotLogin(), "Bot")))
	// An authorised event the workflow has no work for (the bot's PR closed,
	// no run) is accepted: its record and its intake job are one
	// transaction, and the job finds nothing to do.
	require.Equal(t, http.StatusAccepted, e.deliverAs("pull_request", "pull_request.closed.json", "pr-closed-1", e2eSecret, func(p map[string]any) {
		obj(obj(p, "pull_request"), "user")["login"] = e.gh.BotLogin()
		obj(p, "sender")["login"] = e2eUser
	}))
	require.Empty(t, e.botComments(), "nothing ran")

	// The real label, then the same delivery again: the repeat is ignored.
	require.Equal(t, http.StatusAccepted, e.deliverAs("issues", "issues.labeled.json", "label-1", e2eSecret, label(e2eUser, "User")))
	require.Equal(t, http.StatusOK, e.deliverAs("issues", "issues.labeled.json", "label-1", e2eSecret, label(e2eUser, "User")))
	e.waitProgress("issuesmith: stopped")
	progress := e.progress()
	require.Contains(t, progress, "the explorer could not finish")
	require.NotContains(t, progress, "waiting for you")
	require.Empty(t, e.gh.PullRequests(e2eOwner, e2eRepo), "no half-made PR")
	require.Empty(t, e.botComments()["spec"])
	out, err := exec.Command("git", "-C", e.git.Dir(e2eOwner+"/"+e2eRepo), "branch", "--list", "issuesmith/*").CombinedOutput()
	require.NoError(t, err, string(out))
	require.Empty(t, strings.TrimSpace(string(out)), "no branch pushed")
	// The label is reset after the comment says why, so it can be added again.
	e.await(30*time.Second, func() bool {
		is, _ := e.gh.Issue(e2eOwner, e2eRepo, e.issue)
		return !slices.Contains(is.Labels, "issuesmith")
	}, "the label was not reset")
	require.Positive(t, calls.Load())
	metrics := e.get("/metrics")
	for _, want := range []string{
		`issuesmith_webhook_deliveries_total{event="issues",result="duplicate"} 1`,
		`issuesmith_webhook_deliveries_total{event="pull_request",result="dispatched"} 1`,
		`issuesmith_jobs_total{outcome="failed",stage="explore"} 1`,
	} {
		require.Contains(t, metrics, want)
	}
	require.Len(t, e.botComments()["progress"], 1, "one run: the repeat and the refused deliveries started nothing")
}

// reviewComment patches a pull_request_review_comment delivery: comment
// rc, by user (of GitHub type kind), on line 5 of greet.go of the bot's
// pull request pr, whose branch is head.
func (e *e2e) reviewComment(pr int, head string, rc int64, body, user, kind string) func(p map[string]any) {
	return func(p map[string]any) {
		prp := obj(p, "pull_request")
		prp["number"] = pr
		obj(prp, "user")["login"], obj(prp, "user")["type"] = e.gh.BotLogin(), "Bot"
		obj(prp, "head")["ref"] = head
		cm := obj(p, "comment")
		cm["id"], cm["body"], cm["path"], cm["line"] = rc, body, "greet.go", 5
		obj(cm, "user")["login"], obj(cm, "user")["type"] = user, kind
		obj(p, "sender")["login"], obj(p, "sender")["type"] = user, kind
		delete(cm, "in_reply_to_id")
	}
}

// botReplies are the bot's replies in review comment rc's thread.
func (e *e2e) botReplies(pr int, rc int64) []ghtest.ReviewComment {
	var out []ghtest.ReviewComment
	for _, c := range e.gh.ReviewComments(e2eOwner, e2eRepo, pr) {
		if c.InReplyTo == rc && c.User == e.gh.BotLogin() {
			out = append(out, c)
		}
	}
	return out
}
