package webhook

import (
	"github.com/google/go-github/v60/github"
	"github.com/issuesmith/issuesmith/workflow"
)

// issues handles the issues event: labeled and unlabeled (start or cancel a
// run), closed (cancel), edited (the spec's input changed).
func (h *Handler) issues(payload any) verdict {
	e, ok := as[github.IssuesEvent](payload)
	if !ok {
		return malformed("not a IssuesEvent payload")
	}
	if e.GetIssue() == nil {
		return malformed("issues event without an issue")
	}
	if h.isBot(e.GetSender()) {
		return ignore("sender %s is a bot", e.GetSender().GetLogin())
	}
	if e.GetIssue().IsPullRequest() {
		return ignore("issues event for a pull request")
	}
	var kind workflow.EventKind
	authorize := true
	switch e.GetAction() {
	case "labeled":
		kind = workflow.Labeled
	case "unlabeled":
		kind, authorize = workflow.Unlabeled, false
	case "closed":
		kind, authorize = workflow.Closed, false
	case "edited":
		kind = workflow.IssueEdited
	default:
		return ignore("issues action %q", e.GetAction())
	}
	ev := base(kind, e.GetAction(), e.GetInstallation(), e.GetRepo(), e.GetSender())
	ev.Number = e.GetIssue().GetNumber()
	ev.Label = e.GetLabel().GetName()
	return verdict{ev: ev, authorize: authorize}
}
