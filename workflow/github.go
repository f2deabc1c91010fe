package workflow

import "github.com/issuesmith/issuesmith/cievidence"

// The GitHub port's values: what the workflow reads of GitHub's objects,
// in its own terms. An adapter (workflow/ghport over ghapp) fills them;
// a field GitHub left out is its zero value.

// Comment is an issue or pull request conversation comment.
type Comment struct {
	ID      int64
	Body    string
	HTMLURL string
}

// PullRequest is the bot's pull request as the workflow reads it.
type PullRequest struct {
	Number  int
	State   string // "open" or "closed"
	Merged  bool
	Draft   bool
	HTMLURL string
	HeadSHA string // the head branch's commit
	BaseSHA string // the commit its diff is taken against
}

// NewPR is a pull request to open.
type NewPR struct {
	Title string
	Head  string // the run's branch, or with push: fork "forkowner:branch"
	Base  string
	Body  string
	Draft bool
}

// DiffComment is a pull request review comment, on a line of the diff.
type DiffComment struct {
	Path         string
	StartLine    int
	Line         int
	OriginalLine int // the line in the diff it was written on, once outdated (Line 0)
	DiffHunk     string
	Body         string
	HTMLURL      string
	Author       string // login
	AuthorIsBot  bool   // GitHub's user type "Bot" (an App)
}

// Repository is a repository's settings the workflow needs.
type Repository struct {
	DefaultBranch string
	CloneURL      string // without credentials
}

// Issue is the issue a run works on.
type Issue struct {
	Title  string
	Body   string
	Labels []string
}

// CheckRun is a check run of a commit as cievidence judges it, without its
// annotations and job log (read separately, when it failed).
type CheckRun = cievidence.Check

// Annotation is one of a check run's annotations.
type Annotation = cievidence.Annotation

// Fork is where a run's branch is pushed with push: fork: the fork, and
// the installation whose token pushes there.
type Fork struct {
	Owner, Repo    string
	CloneURL       string // without credentials
	InstallationID int64
}
