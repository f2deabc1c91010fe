package ghtest

import (
	"slices"
	"time"
)

// Repo describes a repository to add to the fake.
type Repo struct {
	Owner, Name string
	// DefaultBranch is "main" when empty.
	DefaultBranch string
	// CloneURL is what GET /repos/{owner}/{repo} reports as clone_url
	// (a test's git http-backend).
	CloneURL string
	// Installation owning the repository (the fake's default when 0).
	Installation int64
}

// Issue is an issue or pull request as the fake holds it.
type Issue struct {
	Number int
	Title  string
	Body   string
	User   string
	State  string // "open" or "closed"
	Labels []string
	IsPR   bool
	// Reactions lists "user:content" reactions on the issue itself.
	Reactions []string
}

// Comment is an issue or pull request conversation comment.
type Comment struct {
	ID     int64
	Number int
	User   string
	Body   string
	// Edits counts changes to the body after creation.
	Edits     int
	Reactions []string
}

// PullRequest is a pull request as the fake holds it.
type PullRequest struct {
	Number int
	Title  string
	Body   string
	User   string
	Head   string
	// HeadOwner owns the head branch's repository when it is a fork
	// (the head was "owner:branch"); "" for a branch of the repository.
	HeadOwner string
	Base      string
	Draft     bool
	State     string
	Merged    bool
	Reviewers []string
}

// ReviewComment is a pull request review comment.
type ReviewComment struct {
	ID        int64
	Number    int
	User      string
	Path      string
	Line      int
	StartLine int
	Body      string
	InReplyTo int64
	Reactions []string
}

type token struct {
	installation int64
	expires      time.Time
}

type state struct {
	repos          map[string]*repo
	tokens         map[string]token
	tokensIssued   int
	rate           map[int64]*window // each installation's primary limit (ratelimit.go)
	nextID         int64
	comments       map[int64]*comment
	reviewComments map[int64]*reviewComment
	manifests      []*ManifestApp // registered by the manifest flow (WebHandler)
	hooks          hookLog        // the App's webhook delivery log
	forks          forkState      // accounts and forks (handlers_forks.go)
	oauth          oauthState     // the OAuth web flow and user tokens (oauth.go)
	uninstalled    map[int64]bool // installations removed with Uninstall
	// resolve turns a branch into its head commit (SetRefResolver).
	resolve func(owner, name, ref string) string
}

func newState() state {
	return state{repos: map[string]*repo{}, tokens: map[string]token{}, rate: map[int64]*window{},
		nextID: 1000, uninstalled: map[int64]bool{}, comments: map[int64]*comment{}, reviewComments: map[int64]*reviewComment{}}
}

func (st *state) id() int64 { st.nextID++; return st.nextID }

type repo struct {
	Repo
	id         int64
	issues     map[int]*issue
	nextNumber int
	perms      map[string]string
	files      map[string]map[string][]byte // ref → path → content
	checks     []*CheckRun
}

type issue struct {
	Issue
	id      int64
	pr      *pull
	created time.Time
}

type pull struct {
	id        int64
	head      string
	headOwner string // a fork's owner; "" for the repository itself
	base      string
	draft     bool
	merged    bool
	reviewers []string
}

type comment struct {
	Comment
	repo    string
	bot     bool
	created time.Time
	updated time.Time
}

type reviewComment struct {
	ReviewComment
	repo    string
	bot     bool
	created time.Time
}

// react adds user's reaction once and reports whether it is new.
func react(list *[]string, user, content string) bool {
	r := user + ":" + content
	if slices.Contains(*list, r) {
		return false
	}
	*list = append(*list, r)
	return true
}
