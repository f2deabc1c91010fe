package workflow

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// EventKind says what happened on GitHub, as far as the workflow cares.
// These are the only event kinds in issuesmith: the webhook builds an Event
// of one of them from each delivery and hands it to Engine.Handle.
type EventKind string

// The events the webhook hands over. The webhook has already verified the
// delivery and dropped repeats and bot senders; for kinds that start or
// steer work it sets Event.CheckWrite, and Handle asks GitHub whether the
// sender may write to the repository before anything else (the webhook
// itself never waits on GitHub).
const (
	Labeled   EventKind = "labeled"   // issue labelled (Label says with what)
	Unlabeled EventKind = "unlabeled" // issue unlabelled (Label)
	// LabelsSet is an issue's labels as they are now (Labels), from a
	// forge whose label webhook does not say which label changed (Gitea's
	// label_updated): Handle compares them with the set it recorded last
	// and acts on each label added or removed as on Labeled and Unlabeled.
	LabelsSet     EventKind = "labels_set"
	Closed        EventKind = "closed"         // issue closed: cancel its run
	IssueEdited   EventKind = "issue_edited"   // an issue's title or body edited
	CommandGiven  EventKind = "command"        // issue comment with a command (Command, Args; Body is the comment)
	CommentEdited EventKind = "comment_edited" // one of the bot's comments edited: maybe the plan's approve box
	// ReviewComment is a review comment on the bot's PR mentioning the bot
	// (CommentID, Path, Line, StartLine, InReplyTo).
	ReviewComment EventKind = "review_comment"
	Mention       EventKind = "mention" // conversation comment on the bot's PR mentioning it
	// ReviewSubmitted is a submitted review of the bot's PR whose body
	// mentions the bot (CommentID is the review's id, Body its text, State
	// its state).
	ReviewSubmitted EventKind = "review_submitted"
	// PRClosed is the bot's pull request closed (Number; Merged says
	// whether it was merged).
	PRClosed EventKind = "pr_closed"
	// Pushed is a push to a repository's default branch (Ref, Before, After).
	Pushed EventKind = "pushed"
	// CIFinished is the repository's CI finished on a commit (SHA) of one
	// or more pull requests (PRs; Number is the first): a completed
	// check_run, check_suite or workflow_run.
	CIFinished EventKind = "ci_finished"
	// Installation is the App installed, uninstalled, suspended or
	// unsuspended (Action; Repos lists the repositories of a new
	// installation). An uninstall ("deleted") ends the installation's runs.
	Installation EventKind = "installation"
	// Repositories is repositories added to (Repos) or removed from
	// (Removed) an installation; a removal ends the removed ones' runs.
	Repositories EventKind = "repositories"
)

// Event is one webhook delivery as the workflow reads it, built by the
// webhook's event files. Fields a kind does not use are zero.
//
// It is persisted: the intake job (IntakeArgs) carries it across restarts
// and upgrades. Its JSON names are the Go names the first release wrote
// without tags; keep them, and decode the old name explicitly if one must
// change (payload_test.go decodes every release's golden payloads).
type Event struct {
	Kind EventKind `json:"Kind"`
	// Delivery is GitHub's X-GitHub-Delivery id; GitHubEvent and Action
	// are the webhook's event name and action; Received is when the
	// webhook got the delivery.
	Delivery    string    `json:"Delivery"`
	GitHubEvent string    `json:"GitHubEvent"`
	Action      string    `json:"Action"`
	Received    time.Time `json:"Received"`

	InstallationID int64  `json:"InstallationID"`
	Owner          string `json:"Owner"`
	Repo           string `json:"Repo"`
	Number         int    `json:"Number"` // the issue or pull request (0 for repository-wide kinds)
	IsPR           bool   `json:"IsPR"`   // Number is a pull request
	Sender         string `json:"Sender"` // login of the person who acted
	Label          string `json:"Label"`  // Labeled, Unlabeled
	// Labels are the issue's labels now (LabelsSet).
	Labels    []string `json:"Labels,omitempty"`
	CommentID int64    `json:"CommentID"` // comment and review-comment events; the review's id for ReviewSubmitted
	Body      string   `json:"Body"`      // the comment's (or review's) body, as sent
	// Command and Args are the comment's command (CommandGiven), as
	// ParseCommand read them.
	Command Command `json:"Command"`
	Args    string  `json:"Args"`
	// Review comment position (ReviewComment).
	Path      string `json:"Path"`
	Line      int    `json:"Line"`
	StartLine int    `json:"StartLine"`
	InReplyTo int64  `json:"InReplyTo"`
	State     string `json:"State"` // ReviewSubmitted: the review's state
	// ReadLines (ReviewSubmitted) says the delivery named none of the
	// review's line comments (Gitea): the revise reads them from the forge,
	// and a mention of the bot in one of them is enough.
	ReadLines bool   `json:"ReadLines,omitempty"`
	Head      string `json:"Head"`   // the PR's head branch (PR kinds)
	Merged    bool   `json:"Merged"` // PRClosed: the pull request was merged
	// Ref, Before and After describe a push.
	Ref    string `json:"Ref"`
	Before string `json:"Before"`
	After  string `json:"After"`
	// SHA is the commit CI ran on and PRs the pull requests GitHub
	// named (CIFinished).
	SHA string `json:"SHA"`
	PRs []int  `json:"PRs"`
	// Repos lists "owner/name" repositories added (or installed); Removed
	// those removed.
	Repos   []string `json:"Repos"`
	Removed []string `json:"Removed"`
	// CheckWrite asks Handle to check first that Sender may write to
	// the repository (payload version 2; an older payload's event was
	// checked by the webhook before it was recorded).
	CheckWrite bool `json:"CheckWrite,omitempty"`
}

func (ev Event) key() IssueKey {
	return IssueKey{Owner: ev.Owner, Repo: ev.Repo, Issue: ev.Number}
}

// ErrIgnored is returned (possibly wrapped) by Handle for an event that asks
// nothing of the workflow (another label, a comment without a command, ...):
// the webhook answers it 200 "ignored" and keeps the delivery recorded.
var ErrIgnored = errors.New("nothing to do for this event")

// ErrNoWrite is Handle's answer (it wraps ErrIgnored) to an event marked
// CheckWrite whose sender lacks write permission on the repository.
var ErrNoWrite = fmt.Errorf("%w: the sender lacks write permission on the repository", ErrIgnored)

// Command is a slash command from an issue comment.
type Command string

// The commands people type at the start of a comment line ("/plan").
const (
	CmdSpec      Command = "spec"
	CmdPlan      Command = "plan"
	CmdImplement Command = "implement"
	CmdRetry     Command = "retry"
	CmdStop      Command = "stop"
)

var commands = map[string]Command{
	"spec": CmdSpec, "plan": CmdPlan, "implement": CmdImplement, "retry": CmdRetry, "stop": CmdStop,
}

// ParseCommand finds the first line of body that starts with a command
// ("/plan", "/implement please") and returns it with the rest of the line.
// Quoted lines ("> /stop") and fenced code are not commands. It is the one
// command parser: the webhook uses it to decide that a comment is a
// command, the engine to read one from an event's Body.
func ParseCommand(body string) (Command, string, bool) {
	fenced := false
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "/") {
			continue
		}
		word, args, _ := strings.Cut(line[1:], " ")
		if c, ok := commands[strings.ToLower(word)]; ok {
			return c, strings.TrimSpace(args), true
		}
	}
	return "", "", false
}

// Mentions reports whether body mentions the bot whose login is botLogin
// ("slug[bot]") as @slug: a whole word in any case ("@slug[bot]" too, not
// "@slug-dev" or "mail@slug.io"). It is the one rule: the webhook filters
// with it and the engine checks with it.
func Mentions(body, botLogin string) bool {
	name := strings.TrimSuffix(botLogin, "[bot]")
	if name == "" {
		return false
	}
	lower, m := strings.ToLower(body), "@"+strings.ToLower(name)
	for i := 0; ; {
		j := strings.Index(lower[i:], m)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(m)
		okBefore := start == 0 || !isWordRune(rune(lower[start-1]))
		okAfter := end == len(lower) || !isWordRune(rune(lower[end]))
		if okBefore && okAfter {
			return true
		}
		i = end
	}
}

func isWordRune(r rune) bool {
	return r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
