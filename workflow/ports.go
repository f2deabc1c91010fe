package workflow

import (
	"context"
	"errors"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/internal/ghtext"
	"github.com/issuesmith/issuesmith/llm"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/work"
)

// The agent ports take the run's workspace, ws: the confined view of the
// job's checkout that its Worktree opened once (Worktree.Workspace); an
// agent reads and writes through it, never opens the checkout again by
// path, and never closes it (the Worktree's Close does). Each returns what
// it spent together with its error: a failed agent's tokens are charged
// like a successful one's.

// Explorer turns an issue into a spec by reading the repository checked out
// in ws (preagent's explorer, adapted in agents/). cfg is the repository's
// .github/issuesmith.yml (budgets, observer).
type Explorer interface {
	Explore(ctx context.Context, ws *repo.Workspace, issue IssueText, cfg *config.Repo) (*work.Spec, Spend, error)
}

// IssueText is the issue an explorer reads: its number, title and body as
// the forge gives them.
type IssueText struct {
	Number int
	Title  string
	Body   string
}

// Spend is what an agent used: tokens, and their cost as the model client
// priced them (llm.Response.Cost: per model, cached tokens, the
// repository's model). A zero Cost with tokens falls back to Options.Cost.
// An agent that failed returns what it spent with its error.
type Spend struct {
	Usage llm.Usage
	Cost  float64
}

// Planner turns a spec into a plan (planner.Planner, adapted in agents/).
// ws is a fresh checkout of the base branch: the planner reads the
// repository's guidance (AGENTS.md and friends) there, as the explorer does.
type Planner interface {
	Plan(ctx context.Context, ws *repo.Workspace, spec *work.Spec, cfg *config.Repo) (*work.Plan, Spend, error)
}

// Coder implements a plan, or a review comment, in the worktree's
// workspace ws (coder.Coder, adapted in agents/). A Go error means the run
// could not go on; failed items are reported in the result. A result that
// comes with an error carries what the failed run spent (charged like any
// other). cfg carries the blocked paths, check commands and budgets.
// Implement tells progress (which may be nil) each plan item's start and
// outcome as work.EventItem events: working, then done, failed, blocked or
// skipped.
type Coder interface {
	Implement(ctx context.Context, ws *repo.Workspace, spec *work.Spec, plan *work.Plan, cfg *config.Repo, progress work.Progress) (*CodeResult, error)
	Revise(ctx context.Context, ws *repo.Workspace, req Review, cfg *config.Repo) (*CodeResult, error)
}

// CodeResult is what the coder did, in the terms the PR body needs.
type CodeResult struct {
	Items   []ItemStatus
	Changed []string // paths written, repository-relative
	Checks  []Check
	Summary string // short Markdown for the PR body or the thread reply
	Usage   llm.Usage
	Cost    float64 // priced by the model client; 0 falls back to Options.Cost
	OK      bool    // every item done and every check passed

	// Diagnostics are the language-server errors the change left
	// ("path:line:col: message"), shown in the progress comment.
	Diagnostics []string
}

// Item statuses while the coder works; the outcomes are the coder's (done,
// failed, blocked, skipped).
const (
	ItemPending = work.ItemPending
	ItemWorking = work.ItemWorking
)

// ItemStatus is the status of one plan item: work's, folded (work.Apply)
// from the coder's work.EventItem events, and shown by the workflow.
type ItemStatus = work.ItemStatus

// Check is one validation (build, vet, a configured command).
type Check struct {
	Name   string
	OK     bool
	Output string // tail of the output, for a failing check
}

// Review is one review request to address: a review comment's file and
// line range and its thread (oldest first, the comment to address last),
// or — for a PR conversation comment or a submitted review, which have no
// file — an empty Path, the PR's changed Files and the text as the thread.
type Review struct {
	Path      string
	StartLine int
	Line      int
	DiffHunk  string
	Thread    []ThreadComment
	Files     []string // the PR's changed files when Path is ""
	Spec      *work.Spec
	// A CI fix round (stage_ci.go) sets Evidence: the failing checks'
	// output as cievidence.Render made it (redacted, fenced as untrusted),
	// with the approved Plan and BaseSHA, the commit the pull request's
	// diff is taken against. Files are the PR's changed files.
	Evidence string
	Plan     *work.Plan
	BaseSHA  string
}

// ThreadComment is one comment of a review thread.
type ThreadComment struct {
	Author string
	Body   string
}

// RepoRef names a repository and how to reach it.
type RepoRef struct {
	InstallationID int64
	Owner          string
	Repo           string
	// Base is the branch pull requests target (the default branch).
	Base string
	// CloneURL is the repository's git URL, without credentials.
	CloneURL string
	// Job names the job asking, unique among live jobs (worktree names).
	Job string
	// Fork is where a branch is pushed with push: fork (set by the
	// engine's Git when Deps.Forks is set); nil pushes to the repository.
	Fork *Fork
	// Blocked are the repository's blocked-path globs (coder.Globs
	// syntax): a worktree's Commit must refuse a change at any of them,
	// whatever wrote it. Nil means the coder's defaults; empty blocks
	// nothing.
	Blocked []string
}

// Git prepares worktrees and pushes them (repo's git, adapted in agents/,
// which supplies installation tokens: they never pass through here).
type Git interface {
	// Checkout returns a fresh worktree of r on branch: at the remote
	// branch when it exists (a resumed run), else at r.Base.
	Checkout(ctx context.Context, r RepoRef, branch string) (Worktree, error)
}

// ErrBlockedChange is what a Worktree's Commit wraps when a change touches
// one of RepoRef.Blocked: nothing was committed, and retrying cannot help.
var ErrBlockedChange = errors.New("the change touches a blocked path")

// Worktree is one checkout owned by a job. Close removes it.
type Worktree interface {
	// Workspace is the checkout's one confined view (an os.Root over its
	// directory), opened by Checkout and closed by Close: what the
	// agents are given.
	Workspace() *repo.Workspace
	// Commit stages every change and commits it; changed is false (and
	// sha the current head) when there was nothing to commit. coAuthors
	// are the GitHub logins of the people who asked for the change (who
	// labelled, approved or wrote the review comment): each becomes a
	// Co-authored-by trailer.
	Commit(ctx context.Context, message string, coAuthors ...string) (sha string, changed bool, err error)
	// Push pushes the branch to the remote.
	Push(ctx context.Context) error
	Close() error
}

// GitHub is what the workflow asks of GitHub for one installation, in the
// workflow's own values (github.go) and errors (errors.go): the roles
// below, each a few calls. workflow/ghport implements it over
// *ghapp.Client. A consumer that needs one role takes that role, not
// GitHub.
type GitHub interface {
	Comments
	PullRequests
	ReviewThreads
	RepoFiles
	Issues
	CI
	Access
}

// Access says whether a person may write to a repository (write, maintain
// or admin): asked for the sender of an event marked CheckWrite. A user
// GitHub does not know as a collaborator cannot write.
type Access interface {
	CanWrite(ctx context.Context, owner, repo, user string) (bool, error)
}

// Comments are issue and PR conversation comments, found by marker.
type Comments interface {
	UpsertComment(ctx context.Context, owner, repo string, number int, marker ghtext.Marker, body string) (*Comment, error)
	GetComment(ctx context.Context, owner, repo string, id int64) (*Comment, error)
	FindComment(ctx context.Context, owner, repo string, number int, want ghtext.Marker) (*Comment, ghtext.Marker, error)
}

// PullRequests opens the bot's pull request (or finds it again) and asks
// for a review.
type PullRequests interface {
	FindPR(ctx context.Context, owner, repo, head string) (*PullRequest, error)
	CreatePR(ctx context.Context, owner, repo string, p NewPR) (*PullRequest, error)
	RequestReviewers(ctx context.Context, owner, repo string, number int, users ...string) error
}

// ReviewThreads reads a review comment's thread and replies in it (the
// revise stage).
type ReviewThreads interface {
	GetReviewComment(ctx context.Context, owner, repo string, id int64) (*DiffComment, error)
	ReviewThread(ctx context.Context, owner, repo string, number int, id int64) ([]DiffComment, error)
	ReplyToReviewComment(ctx context.Context, owner, repo string, number int, id int64, body string) (*DiffComment, error)
}

// ReviewLines is offered by a forge whose review delivery names none of
// the review's line comments (Gitea): the line comments of author's newest
// review of pull request number, read when the event asks (ReadLines).
// A GitHub review's line comments arrive as events of their own.
type ReviewLines interface {
	ReviewLines(ctx context.Context, owner, repo string, number int, author string) ([]DiffComment, error)
}

// RepoFiles reads a repository: its settings (default branch, clone URL)
// and a file at a ref (the .github/issuesmith.yml).
type RepoFiles interface {
	Repository(ctx context.Context, owner, repo string) (*Repository, error)
	FileContent(ctx context.Context, owner, repo, path, ref string) ([]byte, error)
}

// Issues reads the issue, reacts to it and resets its trigger label.
type Issues interface {
	GetIssue(ctx context.Context, owner, repo string, number int) (*Issue, error)
	ReactIssue(ctx context.Context, owner, repo string, number int, content string) error
	RemoveLabel(ctx context.Context, owner, repo string, number int, label string) error
}

// CI reads a pull request's checks for the CI fix loop (stage_ci.go) and
// marks the pull request ready for review when they pass.
type CI interface {
	GetPR(ctx context.Context, owner, repo string, number int) (*PullRequest, error)
	CheckRuns(ctx context.Context, owner, repo, ref string) ([]CheckRun, error)
	CheckRunAnnotations(ctx context.Context, owner, repo string, id int64) ([]Annotation, error)
	// JobLog returns an Actions job's log (its end when long), or an
	// error wrapping ErrNoAccess without the actions:read permission.
	JobLog(ctx context.Context, owner, repo string, jobID int64) (string, error)
	MarkReady(ctx context.Context, owner, repo string, number int) error
}

// Installations gives the GitHub client of an installation.
type Installations interface {
	Client(ctx context.Context, installationID int64) (GitHub, error)
}

// InstallationsFunc adapts a function to Installations.
type InstallationsFunc func(ctx context.Context, installationID int64) (GitHub, error)

// Client calls f.
func (f InstallationsFunc) Client(ctx context.Context, id int64) (GitHub, error) { return f(ctx, id) }
