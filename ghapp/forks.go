package ghapp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// ErrNotInstalled is returned (wrapped) when the App is not installed on
// the account that should own the forks (push: fork).
var ErrNotInstalled = errors.New("the App is not installed on the fork owner's account")

// ErrNotAFork is returned (wrapped) when the fork owner's repository of
// that name is not a fork of the repository (or is the repository itself).
var ErrNotAFork = errors.New("no usable fork")

// Fork is the fork of a repository the bot pushes its branches to, and
// the installation (on the fork owner's account) whose token pushes there.
type Fork struct {
	Owner, Repo    string
	CloneURL       string // without credentials
	InstallationID int64
}

// Forks finds or makes forks in one account (the server's
// ISSUESMITH_FORK_OWNER) with the App's installation there. It is safe for
// concurrent use.
type Forks struct {
	App     *App
	Account string // the user or organization that owns the forks
	// Poll is the first wait for a fork GitHub is still making, doubled
	// each time (default 1s); Tries bounds the look-ups (default 8).
	Poll  time.Duration
	Tries int
}

// Owner is the account that owns the forks.
func (f *Forks) Owner() string { return f.Account }

// Installation returns the App's installation on the fork owner's account
// and whether that account is an organization; ErrNotInstalled when the
// App is not installed there.
func (f *Forks) Installation(ctx context.Context) (id int64, org bool, err error) {
	gh := f.App.AppClient()
	inst, _, err := gh.Apps.FindOrganizationInstallation(ctx, f.Account)
	if isStatus(err, http.StatusNotFound) {
		inst, _, err = gh.Apps.FindUserInstallation(ctx, f.Account)
	}
	if isStatus(err, http.StatusNotFound) {
		return 0, false, fmt.Errorf("%w %s: install it there, with access to all its repositories (or at least to the forks), so the bot can push its branches to them", ErrNotInstalled, f.Account)
	}
	if err != nil {
		return 0, false, fmt.Errorf("find the App's installation on %s: %w", f.Account, err)
	}
	return inst.GetID(), strings.EqualFold(inst.GetTargetType(), "Organization"), nil
}

// Fork returns the fork owner's fork of owner/repo, asking GitHub to make it
// (as the fork owner's installation) when there is none, and waiting until
// GitHub shows it.
func (f *Forks) Fork(ctx context.Context, owner, repo string) (*Fork, error) {
	if strings.EqualFold(owner, f.Account) {
		return nil, fmt.Errorf("%w: %s/%s belongs to the fork owner %s itself; a repository cannot be its own fork", ErrNotAFork, owner, repo, f.Account)
	}
	id, org, err := f.Installation(ctx)
	if err != nil {
		return nil, err
	}
	c, err := f.App.Client(ctx, id)
	if err != nil {
		return nil, err
	}
	gh := c.GitHub()
	r, _, err := gh.Repositories.Get(ctx, f.Account, repo)
	switch {
	case err == nil:
		return f.checked(r, owner, repo, id)
	case !isStatus(err, http.StatusNotFound):
		return nil, fmt.Errorf("look for the fork %s/%s: %w", f.Account, repo, err)
	}
	opts := &github.RepositoryCreateForkOptions{DefaultBranchOnly: true}
	if org {
		opts.Organization = f.Account
	}
	r, _, err = gh.Repositories.CreateFork(ctx, owner, repo, opts)
	var accepted *github.AcceptedError
	if err != nil && !errors.As(err, &accepted) {
		return nil, fmt.Errorf("fork %s/%s into %s: %w", owner, repo, f.Account, err)
	}
	return f.await(ctx, gh, r.GetOwner().GetLogin(), r.GetName(), owner, repo, id)
}

// await waits until GitHub shows the new fork forkOwner/name.
func (f *Forks) await(ctx context.Context, gh *github.Client, forkOwner, name, owner, repo string, id int64) (*Fork, error) {
	if forkOwner == "" || name == "" {
		forkOwner, name = f.Account, repo
	}
	wait, tries := f.Poll, f.Tries
	if wait <= 0 {
		wait = time.Second
	}
	if tries <= 0 {
		tries = 8
	}
	for i := 0; ; i++ {
		r, _, err := gh.Repositories.Get(ctx, forkOwner, name)
		switch {
		case err == nil:
			return f.checked(r, owner, repo, id)
		case !isStatus(err, http.StatusNotFound):
			return nil, fmt.Errorf("look for the new fork %s/%s: %w", forkOwner, name, err)
		case i+1 >= tries:
			return nil, fmt.Errorf("GitHub has not finished making the fork %s/%s of %s/%s yet: %w", forkOwner, name, owner, repo, ErrNotFound)
		}
		if err := f.App.sleep(ctx, wait); err != nil {
			return nil, err
		}
		wait *= 2
	}
}

// checked returns r as the fork of owner/repo, or says why it is not one.
func (f *Forks) checked(r *github.Repository, owner, repo string, id int64) (*Fork, error) {
	want := owner + "/" + repo
	if !r.GetFork() || !strings.EqualFold(r.GetParent().GetFullName(), want) {
		return nil, fmt.Errorf("%w: %s exists but is not a fork of %s; rename or remove it", ErrNotAFork, r.GetFullName(), want)
	}
	if r.GetCloneURL() == "" {
		return nil, fmt.Errorf("push to a fork: GitHub gave no clone URL for %s", r.GetFullName())
	}
	return &Fork{Owner: r.GetOwner().GetLogin(), Repo: r.GetName(), CloneURL: r.GetCloneURL(), InstallationID: id}, nil
}
