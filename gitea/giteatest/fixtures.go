package giteatest

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
)

// AddUser makes an account (a site admin when admin is true); adding one
// again changes nothing.
func (s *Server) AddUser(login string, admin bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.addUser(login, admin)
}

// AddToken makes login (when missing) and an access token with scopes
// ("write:issue", "write:repository", "read:user", "all"…) and returns it.
func (s *Server) AddToken(login string, scopes ...string) string {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	tok := hex.EncodeToString(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.addUser(login, false)
	s.st.tokens[tok] = &token{user: login, scopes: scopes}
	return tok
}

// AddRepo adds a repository; its owner is made when missing, and the
// default branch exists (at a zero commit id until SetBranch moves it).
func (s *Server) AddRepo(r Repo) {
	if r.DefaultBranch == "" {
		r.DefaultBranch = "main"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.addUser(r.Owner, false)
	s.st.repos[lower(r.Owner+"/"+r.Name)] = &repo{id: s.st.id(), owner: r.Owner, name: r.Name,
		defaultBranch: r.DefaultBranch, cloneURL: r.CloneURL, private: r.Private,
		branches: map[string]string{r.DefaultBranch: strings.Repeat("0", 40)},
		files:    map[string]map[string]string{}, issues: map[int]*issue{}, deleted: map[int]bool{},
		perms: map[string]string{}, statuses: map[string][]*Status{}, jobLogs: map[int64]string{}}
}

// mustRepo is a repository the test added; a missing one fails the test.
func (s *Server) mustRepo(owner, name string) *repo {
	r := s.st.repo(owner, name)
	if r == nil {
		s.t.Fatalf("giteatest: no repository %s/%s", owner, name)
	}
	return r
}

// SetBranch points a branch at a commit id.
func (s *Server) SetBranch(owner, name, branch, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustRepo(owner, name).branches[branch] = sha
}

// SetFile sets a file's content at ref ("" for the default branch).
func (s *Server) SetFile(owner, name, ref, path, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, name)
	if ref == "" {
		ref = r.defaultBranch
	}
	if r.files[ref] == nil {
		r.files[ref] = map[string]string{}
	}
	r.files[ref][strings.Trim(path, "/")] = content
}

// SetPermission makes user (when missing) a collaborator with perm
// ("read", "write", "admin").
func (s *Server) SetPermission(owner, name, user, perm string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.addUser(user, false)
	s.mustRepo(owner, name).perms[lower(user)] = perm
}

// SetJobLog sets an Actions job's log.
func (s *Server) SetJobLog(owner, name string, jobID int64, log string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustRepo(owner, name).jobLogs[jobID] = log
}

// AddIssue opens an issue and returns its number.
func (s *Server) AddIssue(owner, name string, is Issue) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, name)
	s.st.addUser(is.User, false)
	now := s.opts.Now()
	r.nextIndex++
	x := &issue{number: r.nextIndex, id: s.st.id(), title: is.Title, body: is.Body, user: is.User, state: "open",
		created: now, updated: now}
	for _, l := range is.Labels {
		x.labels = append(x.labels, r.labelID(&s.st, l))
	}
	r.issues[x.number] = x
	return x.number
}

// AddLabel puts a label (made in the repository when missing) on an issue;
// the issue's updated time moves (Gitea records the change as a comment,
// and every comment does).
func (s *Server) AddLabel(owner, name string, number int, label string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, name)
	id := r.labelID(&s.st, label)
	if is := r.issue(number); is != nil && !slices.Contains(is.labels, id) {
		is.labels = append(is.labels, id)
		is.updated = s.opts.Now()
	}
}

// CloseIssue closes an issue (or pull request) as a person does; its
// updated time moves.
func (s *Server) CloseIssue(owner, name string, number int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if is := s.mustRepo(owner, name).issue(number); is != nil {
		is.state, is.updated = "closed", s.opts.Now()
	}
}

// DeleteIssue deletes an issue (or pull request): Gitea answers 404 for
// it from then on (500 on its comment routes, as 1.26 does).
func (s *Server) DeleteIssue(owner, name string, number int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustRepo(owner, name).deleted[number] = true
}

// AddComment comments on an issue or pull request as user and returns
// the comment's id; the issue's updated time moves, as on Gitea.
func (s *Server) AddComment(owner, name string, number int, user, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.addUser(user, false)
	is := s.mustRepo(owner, name).issues[number]
	now := s.opts.Now()
	c := &comment{id: s.st.id(), user: user, body: body, created: now, updated: now}
	is.comments = append(is.comments, c)
	is.updated = now
	return c.id
}

// EditComment changes a comment's body as a person editing it in Gitea's
// web page does (the author, or anyone who may write to the repository):
// the body that was is returned, for the delivery's changes.body.from.
// A missing comment fails the test.
func (s *Server) EditComment(owner, name string, id int64, body string) (was string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, c := s.mustRepo(owner, name).comment(id)
	if c == nil {
		s.t.Fatalf("giteatest: no comment %d in %s/%s", id, owner, name)
		return ""
	}
	was = c.body
	if body != c.body {
		c.edits++
	}
	c.body, c.updated = body, s.opts.Now()
	return was
}

// AddPull adds a pull request (its branches are set to the commit ids
// given) and returns its number: open unless p.State is "closed" or
// p.Merged is set (a merged pull request is closed).
func (s *Server) AddPull(owner, name string, p Pull) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, name)
	s.st.addUser(p.User, false)
	r.branches[p.Head], r.branches[p.Base] = p.HeadSHA, p.BaseSHA
	return s.addPull(r, p).number
}

func (s *Server) addPull(r *repo, p Pull) *issue {
	now := s.opts.Now()
	r.nextIndex++
	state := "open"
	if p.State == "closed" || p.Merged {
		state = "closed"
	}
	x := &issue{number: r.nextIndex, id: s.st.id(), title: p.Title, body: p.Body, user: p.User, state: state,
		created: now, updated: now,
		pr: &pull{head: p.Head, headSHA: p.HeadSHA, base: p.Base, baseSHA: p.BaseSHA, merged: p.Merged}}
	r.issues[x.number] = x
	return x
}

// AddReview submits a review with its line comments and returns its id.
func (s *Server) AddReview(owner, name string, number int, rv Review) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.addUser(rv.User, false)
	is := s.mustRepo(owner, name).issues[number]
	if rv.CommitID == "" {
		rv.CommitID = is.pr.headSHA
	}
	x := &review{id: s.st.id(), user: rv.User, state: rv.State, body: rv.Body, sha: rv.CommitID, submitted: s.opts.Now()}
	for _, c := range rv.Comments {
		x.comments = append(x.comments, reviewComment{id: s.st.id(), ReviewComment: c, user: rv.User})
	}
	is.pr.reviews = append(is.pr.reviews, x)
	is.updated = x.submitted
	return x.id
}
