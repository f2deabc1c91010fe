package webhook

import (
	"github.com/google/go-github/v60/github"
	"github.com/issuesmith/issuesmith/workflow"
)

// issueComment handles issue_comment: a created comment with a command, or
// one mentioning the bot on the bot's PR; an edit of one of the bot's own
// comments (the spec or plan a user rewrote, the approve box ticked).
func (h *Handler) issueComment(payload any) verdict {
	e, ok := as[github.IssueCommentEvent](payload)
	if !ok {
		return malformed("not a IssueCommentEvent payload")
	}
	if e.GetIssue() == nil || e.GetComment() == nil {
		return malformed("issue_comment event without an issue or a comment")
	}
	if h.isBot(e.GetSender()) {
		return ignore("sender %s is a bot", e.GetSender().GetLogin())
	}
	c := e.GetComment()
	ev := base("", e.GetAction(), e.GetInstallation(), e.GetRepo(), e.GetSender())
	ev.Number, ev.IsPR = e.GetIssue().GetNumber(), e.GetIssue().IsPullRequest()
	ev.CommentID, ev.Body = c.GetID(), c.GetBody()
	switch e.GetAction() {
	case "created":
		if cmd, args, ok := workflow.ParseCommand(c.GetBody()); ok {
			ev.Kind, ev.Command, ev.Args = workflow.CommandGiven, cmd, args
			return verdict{ev: ev, authorize: true}
		}
		if ev.IsPR && h.isSelf(e.GetIssue().GetUser().GetLogin()) && h.mentions(c.GetBody()) {
			ev.Kind = workflow.Mention
			return verdict{ev: ev, authorize: true}
		}
		return ignore("comment without a command or mention")
	case "edited":
		if !h.isSelf(c.GetUser().GetLogin()) {
			return ignore("edited comment is not the bot's")
		}
		if e.GetChanges().GetBody().GetFrom() == c.GetBody() {
			return ignore("comment body unchanged")
		}
		ev.Kind = workflow.CommentEdited
		return verdict{ev: ev, authorize: true}
	}
	return ignore("issue_comment action %q", e.GetAction())
}
