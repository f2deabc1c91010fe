package webhook

import (
	"github.com/google/go-github/v60/github"
	"github.com/issuesmith/issuesmith/workflow"
)

// pullRequest handles pull_request closed on the bot's own PR, merged or
// not, so the workflow can finish the run.
func (h *Handler) pullRequest(payload any) verdict {
	e, ok := as[github.PullRequestEvent](payload)
	if !ok {
		return malformed("not a PullRequestEvent payload")
	}
	if e.GetPullRequest() == nil {
		return malformed("pull_request event without a pull request")
	}
	if e.GetAction() != "closed" {
		return ignore("pull_request action %q", e.GetAction())
	}
	pr := e.GetPullRequest()
	if !h.isSelf(pr.GetUser().GetLogin()) {
		return ignore("pull request is not the bot's")
	}
	if h.isSelf(e.GetSender().GetLogin()) {
		return ignore("closed by the bot itself")
	}
	ev := base(workflow.PRClosed, e.GetAction(), e.GetInstallation(), e.GetRepo(), e.GetSender())
	ev.Number, ev.IsPR, ev.Head, ev.Merged = pr.GetNumber(), true, pr.GetHead().GetRef(), pr.GetMerged()
	return verdict{ev: ev}
}
