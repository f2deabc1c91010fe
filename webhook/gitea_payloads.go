package webhook

import "time"

// Gitea's webhook payloads, as far as the bot reads them: the fields of
// Gitea 1.26's modules/structs (hook.go, issue.go, pull.go, repo.go,
// user.go) under their JSON names. Forgejo sends the same.

type giteaUser struct {
	Login    string `json:"login"`
	UserName string `json:"username"`
}

// name is the user's login (Gitea sends it twice; older servers only
// "username").
func (u *giteaUser) name() string {
	if u == nil {
		return ""
	}
	if u.Login != "" {
		return u.Login
	}
	return u.UserName
}

type giteaRepo struct {
	Name          string     `json:"name"`
	FullName      string     `json:"full_name"`
	Owner         *giteaUser `json:"owner"`
	DefaultBranch string     `json:"default_branch"`
}

type giteaLabel struct {
	Name string `json:"name"`
}

type giteaIssue struct {
	Number      int          `json:"number"`
	Title       string       `json:"title"`
	User        *giteaUser   `json:"user"`
	Labels      []giteaLabel `json:"labels"`
	State       string       `json:"state"`
	PullRequest *struct{}    `json:"pull_request"`
}

type giteaComment struct {
	ID      int64      `json:"id"`
	Body    string     `json:"body"`
	User    *giteaUser `json:"user"`
	Updated time.Time  `json:"updated_at"`
}

type giteaBranch struct {
	Ref string `json:"ref"`
	SHA string `json:"sha"`
}

type giteaPR struct {
	Number int          `json:"number"`
	User   *giteaUser   `json:"user"`
	State  string       `json:"state"`
	Merged bool         `json:"merged"`
	Head   *giteaBranch `json:"head"`
}

type giteaChanges struct {
	Body *struct {
		From string `json:"from"`
	} `json:"body"`
}

// giteaIssuePayload is IssuePayload: issues and issue_label events.
type giteaIssuePayload struct {
	Action     string        `json:"action"`
	Number     int           `json:"number"`
	Issue      *giteaIssue   `json:"issue"`
	Changes    *giteaChanges `json:"changes"`
	Repository *giteaRepo    `json:"repository"`
	Sender     *giteaUser    `json:"sender"`
}

// giteaCommentPayload is IssueCommentPayload: issue_comment and
// pull_request_comment events.
type giteaCommentPayload struct {
	Action     string        `json:"action"`
	Issue      *giteaIssue   `json:"issue"`
	Comment    *giteaComment `json:"comment"`
	Changes    *giteaChanges `json:"changes"`
	Repository *giteaRepo    `json:"repository"`
	Sender     *giteaUser    `json:"sender"`
	IsPull     bool          `json:"is_pull"`
}

// giteaPRPayload is PullRequestPayload: pull_request and the review
// events (pull_request_review_approved, _rejected, _comment), whose
// review says only its type and text.
type giteaPRPayload struct {
	Action      string     `json:"action"`
	Number      int        `json:"number"`
	PullRequest *giteaPR   `json:"pull_request"`
	Repository  *giteaRepo `json:"repository"`
	Sender      *giteaUser `json:"sender"`
	Review      *struct {
		Type    string `json:"type"`
		Content string `json:"content"`
	} `json:"review"`
}

// giteaStatusPayload is CommitStatusPayload: the status event (a commit
// status set by CI).
type giteaStatusPayload struct {
	SHA        string     `json:"sha"`
	State      string     `json:"state"`
	Context    string     `json:"context"`
	Repository *giteaRepo `json:"repository"`
	Sender     *giteaUser `json:"sender"`
}

// giteaPushPayload is PushPayload.
type giteaPushPayload struct {
	Ref        string     `json:"ref"`
	Before     string     `json:"before"`
	After      string     `json:"after"`
	Repository *giteaRepo `json:"repository"`
	Sender     *giteaUser `json:"sender"`
}

// giteaPayloads makes the payload of each event type the handler reads.
var giteaPayloads = map[string]func() any{
	"issues":                       func() any { return new(giteaIssuePayload) },
	"issue_label":                  func() any { return new(giteaIssuePayload) },
	"issue_comment":                func() any { return new(giteaCommentPayload) },
	"pull_request_comment":         func() any { return new(giteaCommentPayload) },
	"pull_request":                 func() any { return new(giteaPRPayload) },
	"pull_request_review_approved": func() any { return new(giteaPRPayload) },
	"pull_request_review_rejected": func() any { return new(giteaPRPayload) },
	"pull_request_review_comment":  func() any { return new(giteaPRPayload) },
	"status":                       func() any { return new(giteaStatusPayload) },
	"push":                         func() any { return new(giteaPushPayload) },
}
