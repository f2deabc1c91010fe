package webhook

import (
	"github.com/google/go-github/v60/github"
	"github.com/issuesmith/issuesmith/workflow"
)

// review handles pull_request_review: a submitted review of the bot's PR
// whose body mentions the bot asks for a revision of the whole PR.
func (h *Handler) review(payload any) verdict {
	e, ok := as[github.PullRequestReviewEvent](payload)
	if !ok {
		return malformed("not a PullRequestReviewEvent payload")
	}
	if e.GetPullRequest() == nil || e.GetReview() == nil {
		return malformed("pull_request_review event without a pull request or a review")
	}
	if h.isBot(e.GetSender()) {
		return ignore("sender %s is a bot", e.GetSender().GetLogin())
	}
	if e.GetAction() != "submitted" {
		return ignore("pull_request_review action %q", e.GetAction())
	}
	pr, r := e.GetPullRequest(), e.GetReview()
	if !h.isSelf(pr.GetUser().GetLogin()) {
		return ignore("pull request is not the bot's")
	}
	if !h.mentions(r.GetBody()) {
		return ignore("review does not mention %s", h.mention)
	}
	ev := base(workflow.ReviewSubmitted, e.GetAction(), e.GetInstallation(), e.GetRepo(), e.GetSender())
	ev.Number, ev.IsPR, ev.Head = pr.GetNumber(), true, pr.GetHead().GetRef()
	ev.CommentID, ev.State, ev.Body = r.GetID(), r.GetState(), r.GetBody()
	return verdict{ev: ev, authorize: true}
}
