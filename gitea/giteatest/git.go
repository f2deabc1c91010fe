package giteatest

import "strings"

// SetRefResolver makes the fake read its branches from the test's git
// server, as Gitea reads them from its own repositories: resolve returns
// the commit id a branch of owner/name points at ("" when it has none).
// From then on a pull request is opened from a branch the code under test
// pushed, its head is the branch's commit as it is now (Gitea moves an
// open pull request's head on a push), and a ref's commit statuses follow
// the branch. A branch resolve does not know is looked up among the
// fake's own (SetBranch, AddPull). resolve runs with the fake locked: it
// must not call the fake.
func (s *Server) SetRefResolver(resolve func(owner, name, ref string) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refs = resolve
}

// branch is the commit a branch of r points at: the resolver's answer,
// else the fake's own.
func (s *Server) branch(r *repo, ref string) (string, bool) {
	if s.refs != nil {
		if sha := s.refs(r.owner, r.name, ref); sha != "" {
			return sha, true
		}
	}
	sha, ok := r.branches[ref]
	return sha, ok
}

// resolve turns a ref (a branch or a commit id) into a commit id.
func (s *Server) resolve(r *repo, ref string) (string, bool) {
	if sha, ok := s.branch(r, ref); ok {
		return sha, true
	}
	if len(ref) >= 7 && strings.Trim(strings.ToLower(ref), "0123456789abcdef") == "" {
		return ref, true
	}
	return "", false
}

// heads is an open pull request's head and base commits: the branches'
// when a resolver knows them, else those the pull request was opened at.
func (s *Server) heads(r *repo, is *issue) (head, base string) {
	head, base = is.pr.headSHA, is.pr.baseSHA
	if s.refs == nil || is.state != "open" {
		return head, base
	}
	if sha := s.refs(r.owner, r.name, is.pr.head); sha != "" {
		head = sha
	}
	if sha := s.refs(r.owner, r.name, is.pr.base); sha != "" {
		base = sha
	}
	return head, base
}

// CanPush reports whether token may push to owner/name over git, as Gitea
// decides it for a token given as the password of git's basic auth: the
// token's user may write to the repository and the token has the
// repository scope at write level. A git server in front of the fake
// (repo/gittest's WithTokenCheck) asks it.
func (s *Server) CanPush(owner, name, token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	tok, r := s.st.tokens[token], s.st.repo(owner, name)
	return tok != nil && r != nil && hasScope(tok.scopes, "write", "repository") &&
		atLeast(r.permission(&s.st, tok.user), "write")
}
