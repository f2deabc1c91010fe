package repo

import (
	"context"
	"errors"
	"fmt"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/issuesmith/issuesmith/internal/redact"
)

// UseFork makes the worktree's remote a fork of the repository it was
// prepared from (push: fork): the base stays the one Prepare took from the
// repository, and from now on the branch lives on the fork at url — its tip
// there is RemoteTip, and Push pushes there with the token given to Push.
// With reuse, a branch the fork already has (a resumed run, a revise) is
// fetched with token and checked out in place of the base. url carries no
// credentials; no error text holds the token.
func (wt *Worktree) UseFork(ctx context.Context, url, token string, reuse bool) error {
	red := redact.New(token)
	cfg, err := wt.repo.Config()
	if err != nil {
		return fmt.Errorf("use fork: %w", err)
	}
	cfg.Remotes["origin"].URLs = []string{url}
	if err := wt.repo.SetConfig(cfg); err != nil {
		return fmt.Errorf("use fork: %w", err)
	}
	wt.url = url
	tip, err := wt.remoteTip(ctx, token)
	if err != nil {
		return fmt.Errorf("use fork: list the fork's branches: %w", red.Err(err))
	}
	tracking := plumbing.NewRemoteReferenceName("origin", wt.Branch)
	wt.RemoteTip = tip
	if tip == "" { // the repository's own branch of that name is not this one
		if err := wt.repo.Storer.RemoveReference(tracking); err != nil {
			return fmt.Errorf("use fork: %w", err)
		}
		return nil
	}
	if err := wt.fetchBranch(ctx, token); err != nil {
		return fmt.Errorf("use fork: fetch %s: %w", wt.Branch, red.Err(err))
	}
	if !reuse {
		return nil
	}
	wt.Start = tip
	if err := wt.repo.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(wt.Branch), plumbing.NewHash(tip))); err != nil {
		return fmt.Errorf("use fork: %w", err)
	}
	if wt.Backend == BackendCLI {
		_, err = wt.cli("").run(ctx, "reset", "--hard", "--quiet", tip)
	} else {
		var w *git.Worktree
		if w, err = wt.repo.Worktree(); err == nil {
			err = w.Reset(&git.ResetOptions{Commit: plumbing.NewHash(tip), Mode: git.HardReset})
		}
	}
	if err != nil {
		return fmt.Errorf("use fork: check out %s: %w", wt.Branch, err)
	}
	return nil
}

// fetchBranch fetches the remote branch into its remote-tracking ref.
func (wt *Worktree) fetchBranch(ctx context.Context, token string) error {
	spec := fmt.Sprintf("+refs/heads/%s:refs/remotes/origin/%s", wt.Branch, wt.Branch)
	if wt.Backend == BackendCLI {
		res, err := wt.cli(token).run(ctx, "fetch", "--quiet", "--no-tags", wt.url, spec)
		return cliAuthErr(res.stderr, err)
	}
	err := wt.repo.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", RemoteURL: wt.url, RefSpecs: []config.RefSpec{config.RefSpec(spec)},
		Auth: basicAuth(token), Tags: git.NoTags, Force: true})
	if errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil
	}
	return mapTransportErr(err)
}
