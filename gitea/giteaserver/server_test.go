package giteaserver_test

import (
	"testing"

	"github.com/issuesmith/issuesmith/gitea/giteaserver"
)

// TestStart: the server answers its API, a user's token names the user,
// and a repository with a file, a label and an issue can be made.
func TestStart(t *testing.T) {
	t.Parallel()
	s := giteaserver.Start(t)
	tok := s.User("alice", "write:repository,write:issue,write:user")
	c := s.Client(tok)
	v, err := c.Version(t.Context())
	if err != nil || v == "" {
		t.Fatalf("version %q, %v", v, err)
	}
	me, err := c.Self(t.Context())
	if err != nil || me.Login != "alice" {
		t.Fatalf("self %+v, %v", me, err)
	}
	s.Repo(tok, "alice", "hello", map[string]string{"greet.go": "package greet\n"})
	s.Label(tok, "alice", "hello", "issuesmith")
	n := s.Issue(tok, "alice", "hello", "Greet people", "by name")
	raw, err := c.RawFile(t.Context(), "alice", "hello", "greet.go", "main")
	if err != nil || string(raw) != "package greet\n" {
		t.Fatalf("raw %q, %v", raw, err)
	}
	is, err := c.Issue(t.Context(), "alice", "hello", n)
	if err != nil || is.Title != "Greet people" {
		t.Fatalf("issue %+v, %v", is, err)
	}
}
