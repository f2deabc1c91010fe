package gitea

import "time"

// The types carry only the fields the bot reads; the JSON tags are Gitea's
// (modules/structs of Gitea 1.26).

// User is a Gitea account (structs.User).
type User struct {
	ID       int64  `json:"id"`
	Login    string `json:"login"`
	FullName string `json:"full_name"`
	Email    string `json:"email"`
	HTMLURL  string `json:"html_url"`
	IsAdmin  bool   `json:"is_admin"`
}

// Permissions is what the token's user may do in a repository.
type Permissions struct {
	Admin bool `json:"admin"`
	Push  bool `json:"push"`
	Pull  bool `json:"pull"`
}

// Repository is a repository (structs.Repository).
type Repository struct {
	ID            int64       `json:"id"`
	Owner         User        `json:"owner"`
	Name          string      `json:"name"`
	FullName      string      `json:"full_name"`
	DefaultBranch string      `json:"default_branch"`
	CloneURL      string      `json:"clone_url"`
	HTMLURL       string      `json:"html_url"`
	Private       bool        `json:"private"`
	Fork          bool        `json:"fork"`
	Empty         bool        `json:"empty"`
	Archived      bool        `json:"archived"`
	Permissions   Permissions `json:"permissions"`
}

// Label is an issue label (structs.Label); RemoveLabel takes its ID.
type Label struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Color       string `json:"color"`
	Description string `json:"description"`
	Exclusive   bool   `json:"exclusive"`
}

// PullRequestMeta marks an issue that is a pull request.
type PullRequestMeta struct {
	Merged  bool   `json:"merged"`
	Draft   bool   `json:"draft"`
	HTMLURL string `json:"html_url"`
}

// Issue is an issue or a pull request's issue (structs.Issue).
type Issue struct {
	ID      int64   `json:"id"`
	Number  int     `json:"number"`
	Title   string  `json:"title"`
	Body    string  `json:"body"`
	State   string  `json:"state"` // "open" or "closed"
	HTMLURL string  `json:"html_url"`
	User    User    `json:"user"`
	Labels  []Label `json:"labels"`
	// PullRequest is set when the issue is a pull request.
	PullRequest *PullRequestMeta `json:"pull_request"`
	Created     time.Time        `json:"created_at"`
	Updated     time.Time        `json:"updated_at"`
}

// Comment is an issue or pull request comment (structs.Comment).
type Comment struct {
	ID             int64     `json:"id"`
	HTMLURL        string    `json:"html_url"`
	IssueURL       string    `json:"issue_url"`
	PullRequestURL string    `json:"pull_request_url"`
	User           User      `json:"user"`
	Body           string    `json:"body"`
	Created        time.Time `json:"created_at"`
	Updated        time.Time `json:"updated_at"`
}

// Branch is one side of a pull request (structs.PRBranchInfo).
type Branch struct {
	Label  string `json:"label"`
	Ref    string `json:"ref"`
	SHA    string `json:"sha"`
	RepoID int64  `json:"repo_id"`
}

// PullRequest is a pull request (structs.PullRequest). Draft is Gitea's
// work-in-progress title prefix ("WIP:" or "[WIP]" by default).
type PullRequest struct {
	ID        int64      `json:"id"`
	Number    int        `json:"number"`
	Title     string     `json:"title"`
	Body      string     `json:"body"`
	State     string     `json:"state"` // "open" or "closed"
	Draft     bool       `json:"draft"`
	Merged    bool       `json:"merged"`
	MergedAt  *time.Time `json:"merged_at"`
	Mergeable bool       `json:"mergeable"`
	HTMLURL   string     `json:"html_url"`
	User      User       `json:"user"`
	Labels    []Label    `json:"labels"`
	Head      Branch     `json:"head"`
	Base      Branch     `json:"base"`
	MergeBase string     `json:"merge_base"`
}

// NewPullRequest opens a pull request from Head (a branch, or
// "owner:branch" for a fork's) into Base.
type NewPullRequest struct {
	Title string `json:"title"`
	Head  string `json:"head"`
	Base  string `json:"base"`
	Body  string `json:"body,omitempty"`
}

// EditPullRequest changes the fields that are set.
type EditPullRequest struct {
	Title *string `json:"title,omitempty"`
	Body  *string `json:"body,omitempty"`
}

// Review is a pull request review (structs.PullReview). State is one of
// APPROVED, PENDING, COMMENT, REQUEST_CHANGES, REQUEST_REVIEW.
type Review struct {
	ID            int64     `json:"id"`
	User          User      `json:"user"`
	Body          string    `json:"body"`
	State         string    `json:"state"`
	CommitID      string    `json:"commit_id"`
	Stale         bool      `json:"stale"`
	Official      bool      `json:"official"`
	Dismissed     bool      `json:"dismissed"`
	CommentsCount int       `json:"comments_count"`
	HTMLURL       string    `json:"html_url"`
	Submitted     time.Time `json:"submitted_at"`
	Updated       time.Time `json:"updated_at"`
}

// ReviewComment is a line comment of a review (structs.PullReviewComment).
// Position is the commented line of the new file, OriginalPosition of the
// old one (one of them is 0): line numbers, not GitHub's diff positions.
type ReviewComment struct {
	ID               int64     `json:"id"`
	ReviewID         int64     `json:"pull_request_review_id"`
	Path             string    `json:"path"`
	Body             string    `json:"body"`
	User             User      `json:"user"`
	Position         int       `json:"position"`
	OriginalPosition int       `json:"original_position"`
	CommitID         string    `json:"commit_id"`
	OriginalCommitID string    `json:"original_commit_id"`
	DiffHunk         string    `json:"diff_hunk"`
	HTMLURL          string    `json:"html_url"`
	Created          time.Time `json:"created_at"`
	Updated          time.Time `json:"updated_at"`
}

// Status is a commit status (structs.CommitStatus). Gitea names its state
// "status" here but "state" when one is created (NewStatus).
type Status struct {
	ID          int64     `json:"id"`
	State       string    `json:"status"`
	Context     string    `json:"context"`
	Description string    `json:"description"`
	TargetURL   string    `json:"target_url"`
	Creator     User      `json:"creator"`
	Created     time.Time `json:"created_at"`
	Updated     time.Time `json:"updated_at"`
}

// CombinedStatus is a commit's latest status per context. State is
// "pending" when there is none; failure when any is error, failure or
// warning; success when all are success or skipped.
type CombinedStatus struct {
	State    string   `json:"state"`
	SHA      string   `json:"sha"`
	Statuses []Status `json:"statuses"`
}

// NewStatus is a commit status to create; State is pending, success,
// error, failure, warning or skipped.
type NewStatus struct {
	State       string `json:"state"`
	TargetURL   string `json:"target_url,omitempty"`
	Description string `json:"description,omitempty"`
	Context     string `json:"context,omitempty"`
}

// Hook is a repository webhook (structs.Hook). Gitea never sends the
// secret back in Config.
type Hook struct {
	ID           int64             `json:"id"`
	Type         string            `json:"type"`
	Config       map[string]string `json:"config"`
	Events       []string          `json:"events"`
	Active       bool              `json:"active"`
	BranchFilter string            `json:"branch_filter"`
	Created      time.Time         `json:"created_at"`
	Updated      time.Time         `json:"updated_at"`
}

// NewHook is a webhook to create: Type "gitea" (or "forgejo"), Config
// {"url", "content_type": "json", "secret"}, the events, and
// BranchFilter ("*" for every branch).
type NewHook struct {
	Type         string            `json:"type"`
	Config       map[string]string `json:"config"`
	Events       []string          `json:"events,omitempty"`
	Active       bool              `json:"active"`
	BranchFilter string            `json:"branch_filter,omitempty"`
}
