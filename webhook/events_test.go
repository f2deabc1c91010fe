package webhook

import (
	"net/http"
	"testing"

	"github.com/issuesmith/issuesmith/workflow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const permOp = "GET /repos/{owner}/{repo}/collaborators/{username}/permission"

// TestEvents sends real example payloads, edited where a case needs it,
// signed, through the real handler, and checks what reached the consumer.
func TestEvents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		file      string // testdata/FILE.json; also gives the event name
		event     string
		edit      func(r *rig, m map[string]any)
		status    int
		want      *workflow.Event // nil: nothing dispatched
		authCalls int             // 1: the event asks the intake job to check the sender (CheckWrite)
	}{
		{name: "label added by a writer", file: "issues.labeled", event: "issues", status: 202, authCalls: 1,
			want: &workflow.Event{Kind: workflow.Labeled, Action: "labeled", Number: 1, Sender: "Codertocat", Label: "bug"}},
		{name: "label added by the bot itself", file: "issues.labeled", event: "issues", status: 200,
			edit: func(r *rig, m map[string]any) { m["sender"] = r.botUser() }},
		{name: "label added by another bot", file: "issues.labeled", event: "issues", status: 200,
			edit: func(r *rig, m map[string]any) {
				m["sender"] = map[string]any{"login": "dependabot[bot]", "type": "Bot"}
			}},
		{name: "label removed", file: "issues.unlabeled", event: "issues", status: 202,
			want: &workflow.Event{Kind: workflow.Unlabeled, Action: "unlabeled", Number: 1, Sender: "Codertocat", Label: "bug"}},
		{name: "issue closed", file: "issues.reopened", event: "issues", status: 202,
			edit: func(_ *rig, m map[string]any) { m["action"] = "closed"; set(m, "issue.state", "closed") },
			want: &workflow.Event{Kind: workflow.Closed, Action: "closed", Number: 1, Sender: "Codertocat"}},
		{name: "issue edited", file: "issues.edited", event: "issues", status: 202, authCalls: 1,
			want: &workflow.Event{Kind: workflow.IssueEdited, Action: "edited", Number: 1, Sender: "Codertocat"}},
		{name: "issue opened", file: "issues.opened", event: "issues", status: 200},
		{name: "command", file: "issue_comment.created", event: "issue_comment", status: 202, authCalls: 1,
			edit: func(_ *rig, m map[string]any) { set(m, "comment.body", "Thanks.\n/plan keep it small\n") },
			want: &workflow.Event{Kind: workflow.CommandGiven, Action: "created", Number: 1, Sender: "Codertocat", CommentID: 492700400,
				Body: "Thanks.\n/plan keep it small\n", Command: workflow.CmdPlan, Args: "keep it small"}},
		{name: "comment without command", file: "issue_comment.created", event: "issue_comment", status: 200},
		{name: "command in a quote block is not one", file: "issue_comment.created", event: "issue_comment", status: 200,
			edit: func(_ *rig, m map[string]any) { set(m, "comment.body", "```\n/stop\n```") }},
		{name: "mention on the bot's PR", file: "issue_comment.created", event: "issue_comment", status: 202, authCalls: 1,
			edit: func(r *rig, m map[string]any) {
				set(m, "issue.pull_request", map[string]any{"url": "https://api.github.com/repos/x/y/pulls/1"})
				set(m, "issue.user", r.botUser())
				set(m, "comment.body", "@IssueSmith please add a test")
			},
			want: &workflow.Event{Kind: workflow.Mention, Action: "created", Number: 1, IsPR: true, Sender: "Codertocat", CommentID: 492700400,
				Body: "@IssueSmith please add a test"}},
		{name: "mention of a longer name", file: "issue_comment.created", event: "issue_comment", status: 200,
			edit: func(r *rig, m map[string]any) {
				set(m, "issue.pull_request", map[string]any{"url": "u"})
				set(m, "issue.user", r.botUser())
				set(m, "comment.body", "@issuesmith-helper please")
			}},
		{name: "user edits the bot's plan", file: "issue_comment.edited", event: "issue_comment", status: 202, authCalls: 1,
			edit: func(r *rig, m map[string]any) {
				set(m, "comment.user", r.botUser())
				set(m, "comment.body", "<!-- issuesmith:plan run=1 v=1 -->\n- [x] approve and implement")
			},
			want: &workflow.Event{Kind: workflow.CommentEdited, Action: "edited", Number: 1, Sender: "Codertocat", CommentID: 492700400,
				Body: "<!-- issuesmith:plan run=1 v=1 -->\n- [x] approve and implement"}},
		{name: "bot edits its own plan", file: "issue_comment.edited", event: "issue_comment", status: 200,
			edit: func(r *rig, m map[string]any) { set(m, "comment.user", r.botUser()); m["sender"] = r.botUser() }},
		{name: "user edits their own comment", file: "issue_comment.edited", event: "issue_comment", status: 200,
			edit: func(_ *rig, m map[string]any) { set(m, "comment.body", "/plan") }},
		{name: "comment deleted", file: "issue_comment.deleted", event: "issue_comment", status: 200},
		{name: "review comment mentioning the bot on its PR", file: "pull_request_review_comment.created",
			event: "pull_request_review_comment", status: 202, authCalls: 1,
			edit: func(r *rig, m map[string]any) {
				set(m, "pull_request.user", r.botUser())
				set(m, "comment.body", "@issuesmith use a constant here")
			},
			want: &workflow.Event{Kind: workflow.ReviewComment, Action: "created", Number: 2, IsPR: true, Sender: "Codertocat",
				CommentID: 284312630, Body: "@issuesmith use a constant here", Path: "README.md", Line: 265, Head: "changes"}},
		{name: "review comment without mention", file: "pull_request_review_comment.created",
			event: "pull_request_review_comment", status: 200,
			edit: func(r *rig, m map[string]any) { set(m, "pull_request.user", r.botUser()) }},
		{name: "review comment on someone else's PR", file: "pull_request_review_comment.created",
			event: "pull_request_review_comment", status: 200,
			edit: func(_ *rig, m map[string]any) { set(m, "comment.body", "@issuesmith hi") }},
		{name: "review mentioning the bot", file: "pull_request_review.submitted", event: "pull_request_review", status: 202, authCalls: 1,
			edit: func(r *rig, m map[string]any) {
				set(m, "pull_request.user", r.botUser())
				set(m, "review.body", "@issuesmith split the function")
			},
			want: &workflow.Event{Kind: workflow.ReviewSubmitted, Action: "submitted", Number: 2, IsPR: true, Sender: "Codertocat", Head: "changes",
				CommentID: 237895671, State: "commented", Body: "@issuesmith split the function"}},
		{name: "review dismissed", file: "pull_request_review.dismissed", event: "pull_request_review", status: 200},
		{name: "the bot's PR merged", file: "pull_request.closed", event: "pull_request", status: 202,
			edit: func(r *rig, m map[string]any) {
				set(m, "pull_request.user", r.botUser())
				set(m, "pull_request.merged", true)
			},
			want: &workflow.Event{Kind: workflow.PRClosed, Action: "closed", Number: 2, IsPR: true, Sender: "Codertocat", Head: "changes", Merged: true}},
		{name: "someone else's PR closed", file: "pull_request.closed", event: "pull_request", status: 200},
		{name: "PR opened", file: "pull_request.opened", event: "pull_request", status: 200},
		{name: "push to the default branch", file: "push", event: "push", status: 202,
			edit: func(_ *rig, m map[string]any) {
				m["ref"], m["deleted"], m["after"] = "refs/heads/master", false, "abc123"
				m["sender"] = map[string]any{"login": "merge-bot[bot]", "type": "Bot"}
			},
			want: &workflow.Event{Kind: workflow.Pushed, Sender: "merge-bot[bot]", Ref: "refs/heads/master",
				Before: "6113728f27ae82c7b1a177c8d03f9e96e0adf246", After: "abc123"}},
		{name: "tag deleted", file: "push", event: "push", status: 200},
		{name: "installed", file: "installation.created", event: "installation", status: 202,
			want: &workflow.Event{Kind: workflow.Installation, Action: "created", Sender: "Codertocat", Repos: []string{"Codertocat/Hello-World"}}},
		{name: "permissions accepted", file: "installation.new_permissions_accepted", event: "installation", status: 200},
		{name: "repositories removed", file: "installation_repositories.removed", event: "installation_repositories", status: 202,
			want: &workflow.Event{Kind: workflow.Repositories, Action: "removed", Owner: "octocat", Sender: "octocat", Removed: []string{"octocat/Hello-World"}}},
		{name: "ping", file: "ping", event: "ping", status: 200},
		{name: "check run completed on a PR", file: "check_run.completed", event: "check_run", status: 202,
			want: &workflow.Event{Kind: workflow.CIFinished, Action: "completed", Number: 2, IsPR: true, Sender: "Codertocat",
				SHA: "ec26c3e57ca3a959ca5aad62de7213c562f8c821", Head: "changes", PRs: []int{2}}},
		{name: "check run still running", file: "check_run.completed", event: "check_run", status: 200,
			edit: func(_ *rig, m map[string]any) { m["action"] = "created" }},
		{name: "check suite completed on a PR", file: "check_suite.completed", event: "check_suite", status: 202,
			want: &workflow.Event{Kind: workflow.CIFinished, Action: "completed", Number: 2, IsPR: true, Sender: "Codertocat",
				SHA: "ec26c3e57ca3a959ca5aad62de7213c562f8c821", Head: "changes", PRs: []int{2}}},
		{name: "check suite of no pull request", file: "check_suite.completed", event: "check_suite", status: 200,
			edit: func(_ *rig, m map[string]any) { set(m, "check_suite.pull_requests", []any{}) }},
		{name: "check suite without a commit", file: "check_suite.completed", event: "check_suite", status: 400,
			edit: func(_ *rig, m map[string]any) { set(m, "check_suite.head_sha", "") }},
		{name: "workflow run completed", file: "workflow_run.completed", event: "workflow_run", status: 202,
			edit: func(_ *rig, m map[string]any) {
				// The example's PR is into another repository: point it here.
				pr := m["workflow_run"].(map[string]any)["pull_requests"].([]any)[0].(map[string]any)
				set(pr, "base.repo.id", m["repository"].(map[string]any)["id"])
			},
			want: &workflow.Event{Kind: workflow.CIFinished, Action: "completed", Number: 2, IsPR: true, Owner: "octo-org", Repo: "octo-repo",
				Sender: "Codertocat", SHA: "3484a3fb816e0859fd6e1cea078d76385ff50625", Head: "master", PRs: []int{2}}},
		{name: "workflow run of a PR into another repository", file: "workflow_run.completed", event: "workflow_run", status: 200},
		{name: "workflow run on a fork's branch of the bot's", file: "workflow_run.completed", event: "workflow_run", status: 202,
			edit: func(_ *rig, m map[string]any) {
				// GitHub names no pull request for a fork's branch (push: fork).
				set(m, "workflow_run.pull_requests", []any{})
				set(m, "workflow_run.head_branch", "issuesmith/issue-7")
			},
			want: &workflow.Event{Kind: workflow.CIFinished, Action: "completed", IsPR: true, Owner: "octo-org", Repo: "octo-repo",
				Sender: "Codertocat", SHA: "3484a3fb816e0859fd6e1cea078d76385ff50625", Head: "issuesmith/issue-7"}},
		{name: "workflow run on a fork's other branch", file: "workflow_run.completed", event: "workflow_run", status: 200,
			edit: func(_ *rig, m map[string]any) {
				set(m, "workflow_run.pull_requests", []any{})
				set(m, "workflow_run.head_branch", "issuesmith/issue-7x")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, 0)
			m := payload(t, tc.file, r.gh.Installation())
			if tc.edit != nil {
				tc.edit(r, m)
			}
			d := r.newDelivery(tc.event, m)
			code, body := r.send(d)
			require.Equal(t, tc.status, code, body)
			assert.Zero(t, r.gh.Calls(permOp), "no permission check before recording")
			got := r.disp.got()
			if tc.want == nil {
				assert.Empty(t, got, body)
				return
			}
			require.Len(t, got, 1)
			w := *tc.want
			w.Delivery, w.GitHubEvent, w.InstallationID = d.id, tc.event, r.gh.Installation()
			if w.Owner == "" {
				w.Owner = owner
			}
			if w.Repo == "" && tc.event != "installation" && tc.event != "installation_repositories" {
				w.Repo = repo
			}
			g := got[0]
			assert.False(t, g.Received.IsZero())
			g.Received = w.Received
			assert.Equal(t, tc.authCalls == 1, g.CheckWrite, "the intake job checks the sender's write")
			w.CheckWrite = g.CheckWrite
			assert.Equal(t, w, g)
		})
	}
}

func TestNotPost(t *testing.T) {
	t.Parallel()
	r := newRig(t, 0)
	resp, err := http.Get(r.url)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}

func TestMentions(t *testing.T) {
	t.Parallel()
	h, err := New(Options{Secret: secret, Intake: &recorder{}, BotLogin: "issuesmith[bot]"})
	require.NoError(t, err)
	for body, want := range map[string]bool{
		"@issuesmith fix it": true, "thanks @IssueSmith.": true, "(@issuesmith)": true, "@issuesmith[bot] again": true,
		"@issuesmith-dev": false, "mail@issuesmith.io": false, "issuesmith": false, "@issuesmithy": false, "": false,
	} {
		assert.Equal(t, want, h.mentions(body), body)
	}
}
