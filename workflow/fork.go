package workflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/issuesmith/issuesmith/store"
)

// Forks finds or makes the fork the bot pushes its branches to, with the
// server's push: fork (workflow/ghport.Forks over *ghapp.Forks). With Deps.Forks nil the bot pushes to
// the repository itself.
type Forks interface {
	// Owner is the user or organization that owns the forks.
	Owner() string
	// Fork returns Owner's fork of owner/repo, made when missing, and the
	// installation whose token pushes there.
	Fork(ctx context.Context, owner, repo string) (*Fork, error)
}

// withForks is g, or with forks the Git whose every checkout of a branch
// (code, revise and any later stage that pushes) names the fork in
// RepoRef.Fork: the branch is read from and pushed to the fork, the base
// still comes from the repository.
func withForks(g Git, forks Forks) Git {
	if forks == nil || g == nil {
		return g
	}
	return forkGit{Git: g, forks: forks}
}

type forkGit struct {
	Git
	forks Forks
}

// Checkout finds the fork for a named branch. Without the App on the fork
// owner's account, or with a repository there that is no fork, retrying
// cannot help: the run ends saying so.
func (g forkGit) Checkout(ctx context.Context, r RepoRef, branch string) (Worktree, error) {
	if branch != "" && r.Fork == nil {
		f, err := g.forks.Fork(ctx, r.Owner, r.Repo)
		if errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrNotAFork) {
			return nil, permanent(err)
		}
		if err != nil {
			return nil, err
		}
		r.Fork = f
	}
	return g.Git.Checkout(ctx, r, branch)
}

// prHead is the run's pull request head: its branch, or with push: fork
// "forkowner:branch".
func (s *runJob) prHead() string {
	if s.e.d.Forks == nil {
		return s.run.Branch
	}
	return s.e.d.Forks.Owner() + ":" + s.run.Branch
}

// checkoutFailed is the code stage's error for a checkout of its branch
// that failed. When that failure is for good (push: fork without the App
// on the fork owner's account), nothing was pushed: the run forgets its
// branch, so the progress comment does not point at one, and the reason
// says how to carry on once the cause is fixed.
func (s *runJob) checkoutFailed(ctx context.Context, err error) error {
	err = fmt.Errorf("check out %s: %w", s.run.Branch, err)
	var perm errPermanent
	if !errors.As(err, &perm) {
		return err
	}
	s.run.Branch = ""
	if serr := s.save(ctx); serr != nil {
		return serr
	}
	return permanent(fmt.Errorf("%w. Once that is fixed, comment `/retry`.", err))
}

// ciFinishedOnFork queues a CI job for a CI event that names no pull
// request: GitHub names none when the head branch is a fork's, so with
// push: fork the branch (an Actions workflow run names it) leads to the
// issue's run and its pull request. Anyone's fork may hold a branch of that
// name: the CI job looks only at the head commit of the bot's own pull
// request, so a stranger's commit changes nothing.
func (e *Engine) ciFinishedOnFork(ctx context.Context, c *completion, ev Event) error {
	n, ok := RunBranchIssue(ev.Head)
	if e.d.Forks == nil || !ok {
		return ErrIgnored
	}
	run, err := latestRun(ctx, e.d.Store, IssueKey{Owner: ev.Owner, Repo: ev.Repo, Issue: n})
	if errors.Is(err, store.ErrNotFound) {
		return ErrIgnored
	}
	if err != nil {
		return err
	}
	if run.PRNumber == 0 {
		return ErrIgnored
	}
	return e.insert(ctx, c, run, StageArgs{Stage: StageCI, Head: ev.SHA})
}

// shown is the run as the progress comment shows it: with push: fork its
// branch is named where it lives, "forkowner:branch".
func (s *runJob) shown(run *Run) *Run {
	if s.e.d.Forks == nil || run.Branch == "" {
		return run
	}
	r := *run
	r.Branch = s.prHead()
	return &r
}
