package webhook

import (
	"context"
	"errors"
	"time"
)

// Kind says what an Event asks the workflow to do.
type Kind string

// Event kinds.
const (
	// KindLabeled: a label was added to an issue (Label). The workflow
	// starts a run when it is the repository's configured label.
	KindLabeled Kind = "labeled"
	// KindUnlabeled: a label was removed from an issue (Label): cancel.
	KindUnlabeled Kind = "unlabeled"
	// KindClosed: the issue was closed: cancel its run.
	KindClosed Kind = "closed"
	// KindIssueEdited: the issue's title or body changed.
	KindIssueEdited Kind = "issue_edited"
	// KindCommand: a comment starting with a command (Command, Args).
	KindCommand Kind = "command"
	// KindCommentEdited: someone edited one of the bot's own comments
	// (spec, plan, progress); CommentID and CommentBody give it.
	KindCommentEdited Kind = "comment_edited"
	// KindMention: a conversation comment on the bot's PR mentions the bot.
	KindMention Kind = "mention"
	// KindReviewComment: a review comment on the bot's PR mentions the
	// bot (CommentID, Path, Line, InReplyTo): revise.
	KindReviewComment Kind = "review_comment"
	// KindReview: a submitted review of the bot's PR mentions the bot
	// (ReviewID, CommentBody, State).
	KindReview Kind = "review"
	// KindPRClosed: the bot's PR was closed (Merged says how).
	KindPRClosed Kind = "pr_closed"
	// KindInstallation: the App was installed, removed, suspended or
	// unsuspended (Action, Repos).
	KindInstallation Kind = "installation"
	// KindRepositories: repositories were added to or removed from an
	// installation (Repos, Removed).
	KindRepositories Kind = "repositories"
	// KindPush: the default branch moved to After: refresh summaries.
	KindPush Kind = "push"
)

// Command is a slash command from an authorised user.
type Command string

// The commands the bot understands, at the start of a comment line.
const (
	CmdSpec      Command = "spec"
	CmdPlan      Command = "plan"
	CmdImplement Command = "implement"
	CmdRetry     Command = "retry"
	CmdStop      Command = "stop"
)

// Event is one unit of work for the workflow, already verified, deduplicated
// and — for kinds that start or steer work — authorised: Sender has write,
// maintain or admin permission on Owner/Repo.
type Event struct {
	Kind Kind
	// Delivery is GitHub's X-GitHub-Delivery id; GitHubEvent and Action are
	// the webhook's event name and action.
	Delivery     string
	GitHubEvent  string
	Action       string
	Installation int64
	Owner        string
	Repo         string
	// Number is the issue or pull request number (0 for repository-wide
	// kinds); IsPR is true when it is a pull request.
	Number int
	IsPR   bool
	// Sender is the login of the user who caused the event.
	Sender string
	// Label is the label added or removed.
	Label string
	// CommentID and CommentBody give the comment (issue comment, review
	// comment, or the review's body for KindReview).
	CommentID   int64
	CommentBody string
	// Command and Args are set for KindCommand.
	Command Command
	Args    string
	// Review comment position (KindReviewComment).
	Path      string
	Line      int
	StartLine int
	InReplyTo int64
	// ReviewID and State are set for KindReview.
	ReviewID int64
	State    string
	// Head is the PR's head branch; Merged is set for KindPRClosed.
	Head   string
	Merged bool
	// Ref, Before and After describe a push.
	Ref    string
	Before string
	After  string
	// Repos lists "owner/name" repositories added (or installed);
	// Removed those removed.
	Repos   []string
	Removed []string
	// Received is when the handler got the delivery.
	Received time.Time
}

// Dispatcher receives authorised events. Dispatch must only enqueue durable
// work and return in milliseconds; an error makes the handler answer 503
// and forget the delivery, so GitHub's redelivery is processed again.
type Dispatcher interface {
	Dispatch(ctx context.Context, ev Event) error
}

// ErrNotQueued is what a Dispatcher returns (possibly wrapped) for an
// authorised event it has no work for; the handler answers 200 "ignored"
// instead of 202, and keeps the delivery recorded.
var ErrNotQueued = errors.New("nothing to do for this event")

// Deliveries remembers webhook deliveries by X-GitHub-Delivery id (store
// implements it). RecordDelivery atomically records id and reports fresh =
// true the first time, false for a repeat. The handler also records a key
// "body:<hex sha256 of the body>" (69 characters) per delivery, so a signed
// body replayed under a new delivery id is recognised too.
type Deliveries interface {
	RecordDelivery(ctx context.Context, id, event string) (fresh bool, err error)
}

// Forgetter is optionally implemented by a Deliveries: the handler forgets a
// delivery it could not handle (permission check or dispatch failed), so a
// redelivery from GitHub is processed instead of ignored.
type Forgetter interface {
	ForgetDelivery(ctx context.Context, id string) error
}

// Authorizer checks a sender's permission through the GitHub API, as the
// installation. ghapp.App implements it. An error means "unknown" and the
// handler denies.
type Authorizer interface {
	CanWrite(ctx context.Context, installationID int64, owner, repo, user string) (bool, error)
}
