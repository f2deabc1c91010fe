package workflow

import (
	"context"
	"strings"
	"testing"

	"github.com/issuesmith/issuesmith/workflow/lifecycle"
)

type ownerOnly string

func (o ownerOnly) Owner() string { return string(o) }
func (o ownerOnly) Fork(context.Context, string, string) (*Fork, error) {
	return nil, ErrNotInstalled
}

// With push: fork the progress comment and the PR head name the branch
// where it lives, on the fork; without it, the repository's branch.
func TestForkBranchShown(t *testing.T) {
	t.Parallel()
	run := &Run{Status: lifecycle.Status{State: lifecycle.Failed, Stage: StageCode, Reason: "incomplete"}, Branch: "issuesmith/issue-7"}
	s := &runJob{e: &Engine{d: Deps{Forks: ownerOnly("bots")}}, run: run}
	if got := s.prHead(); got != "bots:issuesmith/issue-7" {
		t.Fatalf("prHead = %q", got)
	}
	if md := renderProgress(s.shown(s.run), nil); !strings.Contains(md, "**Branch:** `bots:issuesmith/issue-7`") {
		t.Fatalf("progress does not name the fork's branch:\n%s", md)
	}
	if run.Branch != "issuesmith/issue-7" {
		t.Fatal("shown changed the run")
	}
	s.e.d.Forks = nil
	if s.prHead() != "issuesmith/issue-7" || !strings.Contains(renderProgress(s.shown(s.run), nil), "**Branch:** `issuesmith/issue-7`") {
		t.Fatal("push: origin names the repository's branch")
	}
}
