package giteatest

import (
	"slices"
	"strings"
	"time"
)

// Repo is a repository to add. DefaultBranch is "main" when empty;
// CloneURL is what Gitea reports (the test's git http-backend).
type Repo struct {
	Owner, Name   string
	DefaultBranch string
	CloneURL      string
	Private       bool
}

// Issue is an issue to add, as User (who must exist) with the labels named
// (made in the repository when missing), or one read back with Issue
// (Number and State are the fake's; AddIssue ignores them).
type Issue struct {
	Number            int
	State             string // open or closed
	Title, Body, User string
	Labels            []string
}

// Pull is a pull request to add (or one read back with Pulls). A title
// with Gitea's work-in-progress prefix is a draft.
type Pull struct {
	Number           int
	Title, Body      string
	User             string
	Head, HeadSHA    string
	Base, BaseSHA    string
	State            string // open or closed
	Merged           bool
	RequestedReviews []string
	// Draft is read back: Gitea's rule on the title (AddPull ignores it).
	Draft bool
}

// Review is a review to add to a pull request.
type Review struct {
	User, State, Body, CommitID string // State: APPROVED, COMMENT, REQUEST_CHANGES…
	Comments                    []ReviewComment
}

// ReviewComment is a line comment of a review: Line on the new side, or
// OldLine on the old one.
type ReviewComment struct {
	Path, Body, DiffHunk string
	Line, OldLine        int
}

// Comment is an issue or pull request comment as the fake keeps it;
// Edits counts the changes to its body since it was made.
type Comment struct {
	ID         int64
	User, Body string
	Edits      int
}

// Status is a commit status as the fake keeps it.
type Status struct {
	ID                                         int64
	State, Context, Description, TargetURL, By string
}

// Hook is a webhook as the fake keeps it.
type Hook struct {
	ID           int64
	Type         string
	Config       map[string]string
	Events       []string
	Active       bool
	BranchFilter string
}

type label struct {
	id                 int64
	name, color, descr string
}

type comment struct {
	id               int64
	user, body       string
	created, updated time.Time
	edits            int
}

type review struct {
	id                     int64
	user, state, body, sha string
	submitted              time.Time
	comments               []reviewComment
}

type reviewComment struct {
	id int64
	ReviewComment
	user string
}

type issue struct {
	number                   int
	id                       int64
	title, body, user, state string
	labels                   []int64 // label ids
	comments                 []*comment
	reactions                []string // "user:content"
	pr                       *pull
	created, updated         time.Time
}

type pull struct {
	head, headSHA, base, baseSHA string
	merged                       bool
	reviews                      []*review
	requested                    []string
}

type repo struct {
	id            int64
	owner, name   string
	defaultBranch string
	cloneURL      string
	private       bool
	branches      map[string]string            // name → sha
	files         map[string]map[string]string // ref → path → content
	labels        []*label
	issues        map[int]*issue
	deleted       map[int]bool
	nextIndex     int
	perms         map[string]string    // user → none/read/write/admin
	statuses      map[string][]*Status // sha → in order created
	hooks         []*Hook
	jobLogs       map[int64]string
}

type user struct {
	id    int64
	login string
	admin bool
}

type token struct {
	user   string
	scopes []string
}

type state struct {
	nextID int64
	users  map[string]*user
	tokens map[string]*token
	repos  map[string]*repo // "owner/name"
}

func newState() state {
	return state{users: map[string]*user{}, tokens: map[string]*token{}, repos: map[string]*repo{}}
}

func (st *state) id() int64 { st.nextID++; return st.nextID }

func (st *state) repo(owner, name string) *repo { return st.repos[strings.ToLower(owner+"/"+name)] }

func (st *state) addUser(login string, admin bool) *user {
	if u := st.users[strings.ToLower(login)]; u != nil {
		return u
	}
	u := &user{id: st.id(), login: login, admin: admin}
	st.users[strings.ToLower(login)] = u
	return u
}

// permission is login's access to r: owner, admin, write, read or none.
func (r *repo) permission(st *state, login string) string {
	u := st.users[strings.ToLower(login)]
	switch {
	case u == nil:
		return "none"
	case strings.EqualFold(login, r.owner):
		return "owner"
	case u.admin:
		return "admin"
	}
	if p, ok := r.perms[strings.ToLower(login)]; ok {
		return p
	}
	if r.private {
		return "none"
	}
	return "read"
}

func atLeast(perm, want string) bool {
	order := []string{"none", "read", "write", "admin", "owner"}
	return slices.Index(order, perm) >= slices.Index(order, want)
}

// labelID finds or makes the label called name.
func (r *repo) labelID(st *state, name string) int64 {
	for _, l := range r.labels {
		if l.name == name {
			return l.id
		}
	}
	l := &label{id: st.id(), name: name, color: "ededed"}
	r.labels = append(r.labels, l)
	return l.id
}

func (r *repo) label(id int64) *label {
	for _, l := range r.labels {
		if l.id == id {
			return l
		}
	}
	return nil
}

// issue is the issue (or pull request) numbered n, nil when missing or
// deleted.
func (r *repo) issue(n int) *issue {
	if r.deleted[n] {
		return nil
	}
	return r.issues[n]
}

// comment finds a comment by id in any issue of r.
func (r *repo) comment(id int64) (*issue, *comment) {
	for n, is := range r.issues {
		if r.deleted[n] {
			continue
		}
		for _, c := range is.comments {
			if c.id == id {
				return is, c
			}
		}
	}
	return nil, nil
}

// isDraft is Gitea's default work-in-progress rule: a "WIP:" or "[WIP]"
// title prefix, in any case.
func isDraft(title string) bool {
	for _, p := range []string{"WIP:", "[WIP]"} {
		if len(title) >= len(p) && strings.EqualFold(title[:len(p)], p) {
			return true
		}
	}
	return false
}
