package webhook

import (
	"github.com/google/go-github/v60/github"
	"github.com/issuesmith/issuesmith/workflow"
)

// reviewComment handles pull_request_review_comment: a new review comment on
// the bot's PR that mentions the bot becomes a revise request.
func (h *Handler) reviewComment(payload any) verdict {
	e, ok := as[github.PullRequestReviewCommentEvent](payload)
	if !ok {
		return malformed("not a PullRequestReviewCommentEvent payload")
	}
	if e.GetPullRequest() == nil || e.GetComment() == nil {
		return malformed("pull_request_review_comment event without a pull request or a comment")
	}
	if h.isBot(e.GetSender()) {
		return ignore("sender %s is a bot", e.GetSender().GetLogin())
	}
	if e.GetAction() != "created" {
		return ignore("pull_request_review_comment action %q", e.GetAction())
	}
	pr, c := e.GetPullRequest(), e.GetComment()
	if !h.isSelf(pr.GetUser().GetLogin()) {
		return ignore("pull request is not the bot's")
	}
	if !h.mentions(c.GetBody()) {
		return ignore("review comment does not mention %s", h.mention)
	}
	ev := base(workflow.ReviewComment, e.GetAction(), e.GetInstallation(), e.GetRepo(), e.GetSender())
	ev.Number, ev.IsPR, ev.Head = pr.GetNumber(), true, pr.GetHead().GetRef()
	ev.CommentID, ev.Body = c.GetID(), c.GetBody()
	ev.Path, ev.Line, ev.StartLine, ev.InReplyTo = c.GetPath(), c.GetLine(), c.GetStartLine(), c.GetInReplyTo()
	return verdict{ev: ev, authorize: true}
}
