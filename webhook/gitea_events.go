package webhook

import (
	"slices"
	"strings"

	"github.com/issuesmith/issuesmith/workflow"
)

// giteaRoutes read a Gitea server's deliveries, by X-Gitea-Event-Type,
// into the workflow's events, with the same filters as GitHub's: the bot's
// own and other bots' events never start work, commands and mentions
// are asked of the sender's permission by the intake job.
var giteaRoutes = map[string]route{
	"issues":                       (*Handler).giteaIssues,
	"issue_label":                  (*Handler).giteaLabels,
	"issue_comment":                (*Handler).giteaComment,
	"pull_request_comment":         (*Handler).giteaComment,
	"pull_request":                 (*Handler).giteaPR,
	"pull_request_review_approved": (*Handler).giteaReview,
	"pull_request_review_rejected": (*Handler).giteaReview,
	"pull_request_review_comment":  (*Handler).giteaReview,
	"status":                       (*Handler).giteaStatus,
	"push":                         (*Handler).giteaPush,
}

// giteaBase fills the fields every Gitea event carries.
func (h *Handler) giteaBase(kind workflow.EventKind, action string, repo *giteaRepo, sender *giteaUser) workflow.Event {
	ev := workflow.Event{Kind: kind, Action: action, InstallationID: h.opts.Gitea.InstallationID, Sender: sender.name()}
	if repo != nil {
		ev.Owner, ev.Repo = repo.Owner.name(), repo.Name
	}
	return ev
}

// giteaBot reports whether login is the bot's Gitea user or one of the
// accounts the server lists as bots (Gitea has no bot account type).
func (h *Handler) giteaBot(login string) bool {
	return h.isSelf(login) || slices.ContainsFunc(h.opts.Bots, func(b string) bool { return strings.EqualFold(b, login) })
}

// giteaIssues handles issues: closed (cancel the run) and edited (the
// spec's input changed). Labels come as issue_label.
func (h *Handler) giteaIssues(payload any) verdict {
	e, ok := as[giteaIssuePayload](payload)
	if !ok || e.Issue == nil {
		return malformed("issues event without an issue")
	}
	if h.giteaBot(e.Sender.name()) {
		return ignore("sender %s is a bot", e.Sender.name())
	}
	if e.Issue.PullRequest != nil {
		return ignore("issues event for a pull request")
	}
	ev := h.giteaBase("", e.Action, e.Repository, e.Sender)
	ev.Number = e.Issue.Number
	switch e.Action {
	case "closed":
		ev.Kind = workflow.Closed
		return verdict{ev: ev}
	case "edited":
		ev.Kind = workflow.IssueEdited
		return verdict{ev: ev, authorize: true}
	}
	return ignore("issues action %q", e.Action)
}

// giteaLabels handles issue_label (label_updated, label_cleared): Gitea
// says the issue's labels as they are now, not which one changed, so the
// workflow compares them with the set it saw last (workflow.LabelsSet).
func (h *Handler) giteaLabels(payload any) verdict {
	e, ok := as[giteaIssuePayload](payload)
	if !ok || e.Issue == nil {
		return malformed("issue_label event without an issue")
	}
	if h.giteaBot(e.Sender.name()) {
		return ignore("sender %s is a bot", e.Sender.name())
	}
	if e.Issue.PullRequest != nil {
		return ignore("labels of a pull request")
	}
	ev := h.giteaBase(workflow.LabelsSet, e.Action, e.Repository, e.Sender)
	ev.Number = e.Issue.Number
	ev.Labels = []string{}
	for _, l := range e.Issue.Labels {
		ev.Labels = append(ev.Labels, l.Name)
	}
	// Gitea may send two label changes with the same body (it builds the
	// payload from the issue as it held it): the second is not a replay.
	// The event only asks the forge for the labels again, so a replayed
	// body changes nothing.
	return verdict{ev: ev, authorize: true, bodyRepeats: true}
}

// giteaComment handles issue_comment and pull_request_comment: a created
// comment with a command, or one mentioning the bot on the bot's pull
// request; an edit of one of the bot's own comments (the plan's box).
func (h *Handler) giteaComment(payload any) verdict {
	e, ok := as[giteaCommentPayload](payload)
	if !ok || e.Issue == nil || e.Comment == nil {
		return malformed("comment event without an issue or a comment")
	}
	if h.giteaBot(e.Sender.name()) {
		return ignore("sender %s is a bot", e.Sender.name())
	}
	ev := h.giteaBase("", e.Action, e.Repository, e.Sender)
	ev.Number, ev.IsPR = e.Issue.Number, e.IsPull || e.Issue.PullRequest != nil
	ev.CommentID, ev.Body = e.Comment.ID, e.Comment.Body
	keys := []string{ObjectKey("gitea", "comment", e.Comment.ID, e.Comment.Updated)}
	switch e.Action {
	case "created":
		if cmd, args, ok := workflow.ParseCommand(ev.Body); ok {
			ev.Kind, ev.Command, ev.Args = workflow.CommandGiven, cmd, args
			return verdict{ev: ev, authorize: true, keys: keys}
		}
		if ev.IsPR && h.isSelf(e.Issue.User.name()) && h.mentions(ev.Body) {
			ev.Kind = workflow.Mention
			return verdict{ev: ev, authorize: true, keys: keys}
		}
		return ignore("comment without a command or mention")
	case "edited":
		if !h.isSelf(e.Comment.User.name()) {
			return ignore("edited comment is not the bot's")
		}
		if e.Changes != nil && e.Changes.Body != nil && e.Changes.Body.From == ev.Body {
			return ignore("comment body unchanged")
		}
		ev.Kind = workflow.CommentEdited
		return verdict{ev: ev, authorize: true, keys: keys}
	}
	return ignore("comment action %q", e.Action)
}

// giteaPR handles pull_request closed (merged or not) on the bot's PR.
func (h *Handler) giteaPR(payload any) verdict {
	e, ok := as[giteaPRPayload](payload)
	if !ok || e.PullRequest == nil {
		return malformed("pull_request event without a pull request")
	}
	pr := e.PullRequest
	switch {
	case e.Action != "closed":
		return ignore("pull_request action %q", e.Action)
	case !h.isSelf(pr.User.name()):
		return ignore("pull request is not the bot's")
	case h.isSelf(e.Sender.name()):
		return ignore("closed by the bot itself")
	}
	ev := h.giteaBase(workflow.PRClosed, e.Action, e.Repository, e.Sender)
	ev.Number, ev.IsPR, ev.Merged = pr.Number, true, pr.Merged
	if pr.Head != nil {
		ev.Head = pr.Head.Ref
	}
	return verdict{ev: ev}
}

// giteaReview handles a submitted review of the bot's PR. Gitea says only
// the review's type and text: no id (the handler gives it one from the
// delivery's body) and none of its line comments, so a review that asks
// for changes or comments is handed on for the revise to read them; an
// approval only when its text mentions the bot.
func (h *Handler) giteaReview(payload any) verdict {
	e, ok := as[giteaPRPayload](payload)
	if !ok || e.PullRequest == nil || e.Review == nil {
		return malformed("review event without a pull request or a review")
	}
	approved := e.Review.Type == "pull_request_review_approved"
	switch {
	case h.giteaBot(e.Sender.name()):
		return ignore("sender %s is a bot", e.Sender.name())
	case !h.isSelf(e.PullRequest.User.name()):
		return ignore("pull request is not the bot's")
	case approved && !h.mentions(e.Review.Content):
		return ignore("an approval that does not mention the bot")
	}
	// The review's line comments are not in the delivery: a mention in one
	// of them asks the bot too, so the revise reads them (ReadLines).
	ev := h.giteaBase(workflow.ReviewSubmitted, e.Action, e.Repository, e.Sender)
	ev.Number, ev.IsPR, ev.Body, ev.ReadLines = e.PullRequest.Number, true, e.Review.Content, true
	ev.State = map[string]string{"pull_request_review_approved": "approved",
		"pull_request_review_rejected": "changes_requested"}[e.Review.Type]
	if ev.State == "" {
		ev.State = "commented"
	}
	return verdict{ev: ev, authorize: true}
}

// giteaStatus handles a commit status that ended (success, failure,
// error): CI finished on a commit; the workflow asks which of the bot's
// pull requests it heads.
func (h *Handler) giteaStatus(payload any) verdict {
	e, ok := as[giteaStatusPayload](payload)
	if !ok || e.SHA == "" {
		return malformed("status event without a commit")
	}
	if e.State == "pending" || e.State == "" {
		return ignore("status %q has not ended", e.State)
	}
	ev := h.giteaBase(workflow.CIFinished, e.State, e.Repository, e.Sender)
	ev.SHA = e.SHA
	return verdict{ev: ev}
}

// giteaPush handles a push to the default branch (summaries refreshed).
func (h *Handler) giteaPush(payload any) verdict {
	e, ok := as[giteaPushPayload](payload)
	if !ok || e.Repository == nil {
		return malformed("push event without a repository")
	}
	if e.After == "" || strings.Trim(e.After, "0") == "" {
		return ignore("branch deleted")
	}
	if e.Ref != "refs/heads/"+e.Repository.DefaultBranch {
		return ignore("push to %s, not the default branch", e.Ref)
	}
	ev := h.giteaBase(workflow.Pushed, "", e.Repository, e.Sender)
	ev.Ref, ev.Before, ev.After = e.Ref, e.Before, e.After
	return verdict{ev: ev}
}
