package repo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/issuesmith/issuesmith/internal/redact"
)

// PushOptions tune a push.
type PushOptions struct {
	// Force replaces the remote branch even when the push is not a
	// fast-forward, but only if the remote tip is still RemoteTip (a lease):
	// a branch moved by someone else is never overwritten.
	Force bool
}

// Push pushes the run's branch to origin with token as HTTP basic auth
// (user x-access-token). Failures are *PushError values wrapping
// ErrBranchMoved (the remote branch is not where this run found it),
// ErrNonFastForward (the branch was rewritten locally; retry with Force),
// ErrPushRejected (the server refused) or ErrAuth. No error text holds the
// token. After a successful push RemoteTip is the pushed commit.
func (wt *Worktree) Push(ctx context.Context, token string, opts PushOptions) error {
	head, err := wt.Head()
	if err != nil {
		return fmt.Errorf("push: %w", err)
	}
	perr := &PushError{Branch: wt.Branch, Expected: wt.RemoteTip}
	red := redact.New(token)
	actual, err := wt.remoteTip(ctx, token)
	if err != nil {
		if errors.Is(err, ErrAuth) {
			perr.Kind, perr.Reason = ErrAuth, red.Text(err.Error())
			return perr
		}
		return fmt.Errorf("push %s: %w", wt.Branch, red.Err(err))
	}
	perr.Actual = actual
	if actual == head {
		wt.RemoteTip = head
		return nil // already there
	}
	if actual != wt.RemoteTip {
		perr.Kind = ErrBranchMoved
		return perr
	}
	if actual != "" && !opts.Force {
		ok, err := wt.descends(head, actual)
		if err != nil {
			return fmt.Errorf("push %s: %w", wt.Branch, err)
		}
		if !ok {
			perr.Kind = ErrNonFastForward
			return perr
		}
	}
	if wt.Backend == BackendCLI {
		err = wt.pushCLI(ctx, token, opts.Force)
	} else {
		err = wt.pushGoGit(ctx, token, opts.Force)
	}
	if err != nil {
		var pe *PushError
		if errors.As(err, &pe) {
			pe.Branch, pe.Expected, pe.Actual = wt.Branch, wt.RemoteTip, actual
			pe.Reason = red.Text(pe.Reason)
			return pe
		}
		return fmt.Errorf("push %s: %w", wt.Branch, red.Err(err))
	}
	wt.RemoteTip = head
	ref := plumbing.NewHashReference(plumbing.NewRemoteReferenceName("origin", wt.Branch), plumbing.NewHash(head))
	if err := wt.repo.Storer.SetReference(ref); err != nil {
		return fmt.Errorf("push %s: record remote tip: %w", wt.Branch, err)
	}
	return nil
}

// remoteTip asks the remote where the branch is now ("" if it does not
// exist). The remote is wt.url, the bot's own record, never a URL read from
// a configuration file.
func (wt *Worktree) remoteTip(ctx context.Context, token string) (string, error) {
	rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{wt.url}})
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: basicAuth(token)})
	if err != nil {
		return "", mapTransportErr(err)
	}
	want := plumbing.NewBranchReferenceName(wt.Branch)
	for _, ref := range refs {
		if ref.Name() == want {
			return ref.Hash().String(), nil
		}
	}
	return "", nil
}

// descends reports whether commit head has ancestor as an ancestor (or is
// it).
func (wt *Worktree) descends(head, ancestor string) (bool, error) {
	if head == ancestor {
		return true, nil
	}
	hc, err := object.GetCommit(wt.repo.Storer, plumbing.NewHash(head))
	if err != nil {
		return false, err
	}
	ac, err := object.GetCommit(wt.repo.Storer, plumbing.NewHash(ancestor))
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return ac.IsAncestor(hc)
}

// pushGoGit pushes with go-git to wt.url (named explicitly: the stored
// remote is never read); a Force push carries a lease on RemoteTip.
func (wt *Worktree) pushGoGit(ctx context.Context, token string, force bool) error {
	ref := plumbing.NewBranchReferenceName(wt.Branch)
	spec := config.RefSpec(ref.String() + ":" + ref.String())
	po := &git.PushOptions{RemoteName: "origin", RemoteURL: wt.url, RefSpecs: []config.RefSpec{spec}, Auth: basicAuth(token)}
	if force && wt.RemoteTip != "" {
		po.RefSpecs = []config.RefSpec{"+" + spec}
		po.ForceWithLease = &git.ForceWithLease{RefName: ref, Hash: plumbing.NewHash(wt.RemoteTip)}
	}
	err := wt.repo.PushContext(ctx, po)
	switch {
	case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate):
		return nil
	case errors.Is(mapTransportErr(err), ErrAuth):
		return &PushError{Kind: ErrAuth, Reason: err.Error()}
	case strings.Contains(err.Error(), "non-fast-forward"):
		return &PushError{Kind: ErrBranchMoved, Reason: err.Error()}
	case strings.Contains(err.Error(), "command error on"), strings.Contains(err.Error(), "unpack error"):
		return &PushError{Kind: ErrPushRejected, Reason: err.Error()}
	}
	return err
}

// pushCLI pushes with the git CLI to wt.url (named on the command line:
// the stored remote is never read) and classifies its refusal messages.
func (wt *Worktree) pushCLI(ctx context.Context, token string, force bool) error {
	ref := "refs/heads/" + wt.Branch
	args := []string{"push", "--porcelain", "--no-verify", wt.url, ref + ":" + ref}
	if force && wt.RemoteTip != "" {
		args = []string{"push", "--porcelain", "--no-verify", "--force-with-lease=" + ref + ":" + wt.RemoteTip, wt.url, "+" + ref + ":" + ref}
	}
	res, err := wt.cli(token).run(ctx, args...)
	if err == nil {
		return nil
	}
	if errors.Is(cliAuthErr(res.stderr, err), ErrAuth) {
		return &PushError{Kind: ErrAuth, Reason: lastLine(res.stderr)}
	}
	summary, ok := porcelainRefusal(res.stdout)
	switch {
	case !ok:
		return err
	case strings.HasPrefix(summary, "[rejected]") && (strings.Contains(summary, "(stale info)") ||
		strings.Contains(summary, "(fetch first)") || strings.Contains(summary, "(non-fast-forward)")):
		return &PushError{Kind: ErrBranchMoved, Reason: summary}
	default: // "[remote rejected] (<hook's reason>)", "[rejected] (<other>)"
		return &PushError{Kind: ErrPushRejected, Reason: refusalReason(summary, res.stderr)}
	}
}

// porcelainRefusal finds the refused ref in git push --porcelain output:
// the line "!<TAB><from>:<to><TAB><summary>" (git-push(1), OUTPUT), and
// returns its summary, e.g. "[remote rejected] (pre-receive hook declined)".
// Only this line is read: a hook's own words, a repository name or a port
// can never pass for git's verdict.
func porcelainRefusal(stdout string) (string, bool) {
	for _, l := range strings.Split(stdout, "\n") {
		f := strings.SplitN(l, "\t", 3)
		if len(f) == 3 && f[0] == "!" {
			return strings.TrimSpace(f[2]), true
		}
	}
	return "", false
}

// refusalReason is git's summary plus the server's own "remote:" lines
// (a hook's or GitHub's explanation, e.g. GH006 Protected branch update
// failed), so the reason shown says why.
func refusalReason(summary, stderr string) string {
	var remote []string
	for _, l := range strings.Split(stderr, "\n") {
		if r, ok := strings.CutPrefix(strings.TrimSpace(l), "remote:"); ok && strings.TrimSpace(r) != "" {
			remote = append(remote, strings.TrimSpace(r))
		}
	}
	if len(remote) == 0 {
		return summary
	}
	return summary + ": " + strings.Join(remote, " ")
}
