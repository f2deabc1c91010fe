package giteatest

// Comments returns an issue's comments, oldest first.
func (s *Server) Comments(owner, name string, number int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	if is := s.mustRepo(owner, name).issues[number]; is != nil {
		for _, c := range is.comments {
			out = append(out, Comment{ID: c.id, User: c.user, Body: c.body, Edits: c.edits})
		}
	}
	return out
}

// Issue returns an issue (or a pull request's issue) as it is now, with
// Number and State filled; false when there is none or it was deleted.
func (s *Server) Issue(owner, name string, number int) (Issue, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, name)
	is := r.issue(number)
	if is == nil {
		return Issue{}, false
	}
	out := Issue{Number: is.number, State: is.state, Title: is.title, Body: is.body, User: is.user}
	for _, id := range is.labels {
		out.Labels = append(out.Labels, r.label(id).name)
	}
	return out, true
}

// Labels returns the names of an issue's labels.
func (s *Server) Labels(owner, name string, number int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, name)
	var out []string
	if is := r.issues[number]; is != nil {
		for _, id := range is.labels {
			out = append(out, r.label(id).name)
		}
	}
	return out
}

// Reactions returns an issue's reactions as "user:content".
func (s *Server) Reactions(owner, name string, number int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if is := s.mustRepo(owner, name).issues[number]; is != nil {
		return append([]string(nil), is.reactions...)
	}
	return nil
}

// Pulls returns the repository's pull requests, by number.
func (s *Server) Pulls(owner, name string) []Pull {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, name)
	var out []Pull
	for n := 1; n <= r.nextIndex; n++ {
		is := r.issue(n)
		if is == nil || is.pr == nil {
			continue
		}
		head, base := s.heads(r, is)
		out = append(out, Pull{Number: n, Title: is.title, Body: is.body, User: is.user, Head: is.pr.head,
			HeadSHA: head, Base: is.pr.base, BaseSHA: base, State: is.state, Merged: is.pr.merged,
			Draft: isDraft(is.title), RequestedReviews: append([]string(nil), is.pr.requested...)})
	}
	return out
}

// Statuses returns the statuses set on a commit, in order.
func (s *Server) Statuses(owner, name, sha string) []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Status
	for _, st := range s.mustRepo(owner, name).statuses[sha] {
		out = append(out, *st)
	}
	return out
}

// Hooks returns the repository's webhooks (with their secrets).
func (s *Server) Hooks(owner, name string) []Hook {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Hook
	for _, h := range s.mustRepo(owner, name).hooks {
		out = append(out, *h)
	}
	return out
}

// SetStatus sets a commit status as user (as a CI would).
func (s *Server) SetStatus(owner, name, sha, user string, st Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.ID, st.By = s.st.id(), user
	r := s.mustRepo(owner, name)
	r.statuses[sha] = append(r.statuses[sha], &st)
}
