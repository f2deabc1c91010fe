package ghtest

import (
	"slices"
	"sort"
	"time"
)

// AddRepo adds a repository (replacing one with the same name).
func (s *Server) AddRepo(r Repo) {
	if r.DefaultBranch == "" {
		r.DefaultBranch = "main"
	}
	if r.Installation == 0 {
		r.Installation = s.opts.Installation
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.repos[r.Owner+"/"+r.Name] = &repo{Repo: r, id: s.st.id(), issues: map[int]*issue{},
		perms: map[string]string{}, files: map[string]map[string][]byte{}}
}

// repo returns a repository the test added, failing the test otherwise.
func (s *Server) repo(owner, name string) *repo {
	rp := s.st.repos[owner+"/"+name]
	if rp == nil {
		s.t.Fatalf("ghtest: repository %s/%s was not added", owner, name)
	}
	return rp
}

// SetPermission gives user a role on the repository: admin, maintain,
// write, triage, read or none. Users without one read (a public repository).
// A custom repository role (GitHub Enterprise) is "name:base", e.g.
// "deployer:write": role_name says the name, permission the base.
func (s *Server) SetPermission(owner, name, user, role string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(owner, name).perms[user] = role
}

// SetFile stores a file at path on ref ("" is the default branch).
func (s *Server) SetFile(owner, name, ref, path string, content []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repo(owner, name)
	if ref == "" {
		ref = rp.DefaultBranch
	}
	if rp.files[ref] == nil {
		rp.files[ref] = map[string][]byte{}
	}
	rp.files[ref][path] = slices.Clone(content)
}

// AddIssue opens an issue and returns its number.
func (s *Server) AddIssue(owner, name string, is Issue) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repo(owner, name)
	rp.nextNumber++
	is.Number, is.State, is.IsPR = rp.nextNumber, "open", false
	rp.issues[is.Number] = &issue{Issue: is, id: s.st.id(), created: time.Now()}
	return is.Number
}

// Issue returns an issue or pull request by number.
func (s *Server) Issue(owner, name string, number int) (Issue, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.repo(owner, name).issues[number]
	if is == nil {
		return Issue{}, false
	}
	out := is.Issue
	out.Labels, out.Reactions = slices.Clone(is.Labels), slices.Clone(is.Reactions)
	return out, true
}

// SetLabels replaces an issue's labels, as a user would.
func (s *Server) SetLabels(owner, name string, number int, labels ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if is := s.repo(owner, name).issues[number]; is != nil {
		is.Labels = slices.Clone(labels)
	}
}

// AddComment posts a comment as user and returns its id.
func (s *Server) AddComment(owner, name string, number int, user, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(owner, name)
	return s.st.addComment(owner+"/"+name, number, user, false, body).ID
}

func (st *state) addComment(repoKey string, number int, user string, bot bool, body string) *comment {
	now := time.Now()
	c := &comment{Comment: Comment{ID: st.id(), Number: number, User: user, Body: body},
		repo: repoKey, bot: bot, created: now, updated: now}
	st.comments[c.ID] = c
	return c
}

// EditComment changes a comment's body as a user would (its author stays).
func (s *Server) EditComment(id int64, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.st.comments[id]
	if c == nil {
		s.t.Fatalf("ghtest: no comment %d", id)
	}
	c.Body, c.updated = body, time.Now()
	c.Edits++
}

// Comment returns a comment by id.
func (s *Server) Comment(id int64) (Comment, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.st.comments[id]
	if c == nil {
		return Comment{}, false
	}
	out := c.Comment
	out.Reactions = slices.Clone(c.Reactions)
	return out, true
}

// Comments returns the comments on an issue or pull request, oldest first.
func (s *Server) Comments(owner, name string, number int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.st.issueComments(owner+"/"+name, number) {
		cc := c.Comment
		cc.Reactions = slices.Clone(c.Reactions)
		out = append(out, cc)
	}
	return out
}

func (st *state) issueComments(repoKey string, number int) []*comment {
	var out []*comment
	for _, c := range st.comments {
		if c.repo == repoKey && c.Number == number {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// PullRequests returns the repository's pull requests, by number.
func (s *Server) PullRequests(owner, name string) []PullRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []PullRequest
	for _, is := range s.repo(owner, name).sortedIssues() {
		if is.pr != nil {
			out = append(out, is.snapshotPR())
		}
	}
	return out
}

func (is *issue) snapshotPR() PullRequest {
	return PullRequest{Number: is.Number, Title: is.Title, Body: is.Body, User: is.User, Head: is.pr.head, HeadOwner: is.pr.headOwner,
		Base: is.pr.base, Draft: is.pr.draft, State: is.State, Merged: is.pr.merged, Reviewers: slices.Clone(is.pr.reviewers)}
}

func (rp *repo) sortedIssues() []*issue {
	var out []*issue
	for _, is := range rp.issues {
		out = append(out, is)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out
}

// ClosePR closes a pull request, merged or not, as a user would.
func (s *Server) ClosePR(owner, name string, number int, merged bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if is := s.repo(owner, name).issues[number]; is != nil && is.pr != nil {
		is.State, is.pr.merged = "closed", merged
	}
}

// AddReviewComment posts a review comment on pull request number as a user
// (rc.User) and returns its id. rc.InReplyTo makes it a reply in a thread.
func (s *Server) AddReviewComment(owner, name string, number int, rc ReviewComment) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(owner, name)
	rc.Number = number
	return s.st.addReviewComment(owner+"/"+name, rc, false).ID
}

func (st *state) addReviewComment(repoKey string, rc ReviewComment, bot bool) *reviewComment {
	rc.ID = st.id()
	c := &reviewComment{ReviewComment: rc, repo: repoKey, bot: bot, created: time.Now()}
	st.reviewComments[c.ID] = c
	return c
}

// ReviewComments returns the review comments on pull request number, oldest
// first.
func (s *Server) ReviewComments(owner, name string, number int) []ReviewComment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ReviewComment
	for _, c := range s.st.prReviewComments(owner+"/"+name, number) {
		rc := c.ReviewComment
		rc.Reactions = slices.Clone(c.Reactions)
		out = append(out, rc)
	}
	return out
}

func (st *state) prReviewComments(repoKey string, number int) []*reviewComment {
	var out []*reviewComment
	for _, c := range st.reviewComments {
		if c.repo == repoKey && c.Number == number {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// TokensIssued counts installation tokens handed out.
func (s *Server) TokensIssued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.tokensIssued
}
