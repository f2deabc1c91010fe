package agents

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/issuesmith/issuesmith/coder"
	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/repo"
	"github.com/issuesmith/issuesmith/workflow"
)

// Git is workflow.Git over repo.Cache, with tokens from the forge of
// each installation (Credentials): the token goes to git only, never to
// the workflow.
type Git struct {
	cache  *repo.Cache
	app    Credentials
	author repo.Signature
	seq    atomic.Int64
}

// Credentials are what git needs of the forge an installation belongs to:
// a token to fetch and push with, and a person's git identity for a
// Co-authored-by trailer.
type Credentials interface {
	Token(ctx context.Context, installationID int64) (string, error)
	CoAuthor(ctx context.Context, installationID int64, owner, repo, login string) repo.Signature
	// Author is the bot's own identity on the installation's forge; ok
	// false keeps the author NewGit was given.
	Author(installationID int64) (sig repo.Signature, ok bool)
}

// NewGit returns the bot's git: worktrees from cache, tokens from creds,
// commits by author.
func NewGit(cache *repo.Cache, creds Credentials, author repo.Signature) *Git {
	return &Git{cache: cache, app: creds, author: author}
}

// AppCredentials are a GitHub App's: installation tokens, and a person's
// noreply address with their user id when GitHub gives it.
type AppCredentials struct{ App *ghapp.App }

// Author keeps NewGit's author: the App's bot.
func (a AppCredentials) Author(int64) (repo.Signature, bool) { return repo.Signature{}, false }

// Token is an installation token of the App.
func (a AppCredentials) Token(ctx context.Context, installationID int64) (string, error) {
	return a.App.Token(ctx, installationID)
}

// CoAuthor is login's git identity. The user id comes from the
// collaborator permission endpoint (the requester has write access, so it
// answers); without it the login-only noreply address still names them.
func (a AppCredentials) CoAuthor(ctx context.Context, installationID int64, owner, repoName, login string) repo.Signature {
	sig := repo.Signature{Name: login, Email: login + "@users.noreply.github.com"}
	c, err := a.App.Client(ctx, installationID)
	if err != nil {
		return sig
	}
	perm, _, err := c.GitHub().Repositories.GetPermissionLevel(ctx, owner, repoName, login)
	if err == nil && perm.GetUser().GetID() != 0 {
		sig.Email = repo.NoReplyEmail(perm.GetUser().GetID(), perm.GetUser().GetLogin())
	}
	return sig
}

// Checkout prepares a worktree from the cache: branch "" is a read-only
// checkout of the base; a named branch starts from the remote branch when it
// exists (a resumed run, a revise), else from the base. With r.Fork the
// remote branch is the fork's (read and pushed with the fork owner's
// installation token); the base is still the repository's.
func (g *Git) Checkout(ctx context.Context, r workflow.RepoRef, branch string) (workflow.Worktree, error) {
	if r.CloneURL == "" {
		return nil, errors.New("checkout: the repository has no clone URL")
	}
	token, err := g.app.Token(ctx, r.InstallationID)
	if err != nil {
		return nil, err
	}
	reuse := branch != ""
	if branch == "" {
		branch = "issuesmith/read-only" // never pushed
	}
	id := fmt.Sprintf("%s-%d", strings.NewReplacer("/", "-", " ", "-").Replace(r.Job), g.seq.Add(1))
	wt, err := g.cache.Prepare(ctx, repo.PrepareOptions{URL: r.CloneURL, Token: token, Base: r.Base, Branch: branch, RunID: id,
		Reuse: reuse && r.Fork == nil})
	if err != nil {
		return nil, err
	}
	if r.Fork != nil {
		if err := g.useFork(ctx, wt, r.Fork, reuse); err != nil {
			return nil, errors.Join(err, wt.Remove())
		}
	}
	ws, err := wt.Workspace()
	if err != nil {
		return nil, errors.Join(err, wt.Remove())
	}
	ws.SetRepository(RepositoryKey(r))
	blocked := coder.Globs(coder.DefaultBlocked)
	if r.Blocked != nil {
		blocked = coder.Globs(r.Blocked)
	}
	return &worktree{wt: wt, ws: ws, g: g, ref: r, blocked: blocked}, nil
}

// RepositoryKey names r's repository for its sandbox caches, from the
// bot's own record: the forge's host, the installation and the full name
// (an installation's owner cannot take another's key, and a repository
// name reused by someone else after a transfer lands in another
// installation). Nothing in the work tree is read.
func RepositoryKey(r workflow.RepoRef) string {
	host := "forge"
	if u, err := url.Parse(r.CloneURL); err == nil && u.Host != "" {
		host = u.Hostname()
	}
	return strings.ToLower(fmt.Sprintf("%s/installation-%d/%s/%s", host, r.InstallationID, r.Owner, r.Repo))
}

type worktree struct {
	wt *repo.Worktree
	// ws is the checkout's one confined view, opened with it: the agents
	// read and write through it; Close closes it.
	ws  *repo.Workspace
	g   *Git
	ref workflow.RepoRef
	// blocked paths are refused at commit time too: the coder's edit-time
	// check does not see files a check command or generator wrote.
	blocked coder.Globs
}

// Workspace, Close, Commit and Push implement workflow.Worktree over
// repo.Worktree; Push fetches a fresh installation token.
func (w *worktree) Workspace() *repo.Workspace { return w.ws }
func (w *worktree) Close() error               { return errors.Join(w.ws.Close(), w.wt.Remove()) }

// Commit credits each co-author with a Co-authored-by trailer in GitHub's
// noreply form (user id + login), so the commit links to the account.
func (w *worktree) Commit(ctx context.Context, msg string, coAuthors ...string) (string, bool, error) {
	author := w.g.author
	if a, ok := w.g.authorFor(w.ref.InstallationID); ok {
		author = a
	}
	opts := repo.CommitOptions{Message: msg, Author: author, Blocked: w.blocked.Match}
	for _, login := range coAuthors {
		opts.CoAuthors = append(opts.CoAuthors, w.coAuthor(ctx, login))
	}
	sha, err := w.wt.Commit(ctx, opts)
	if errors.Is(err, repo.ErrBlockedPath) {
		return "", false, fmt.Errorf("%w: %w", workflow.ErrBlockedChange, err)
	}
	if errors.Is(err, repo.ErrEmptyChange) {
		head, herr := w.wt.Head()
		return head, false, herr
	}
	return sha, err == nil, err
}

// coAuthor is login's git identity, as the installation's forge says it.
func (w *worktree) coAuthor(ctx context.Context, login string) repo.Signature {
	return w.g.app.CoAuthor(ctx, w.ref.InstallationID, w.ref.Owner, w.ref.Repo, login)
}

func (w *worktree) Push(ctx context.Context) error {
	inst := w.ref.InstallationID
	if w.ref.Fork != nil {
		inst = w.ref.Fork.InstallationID
	}
	token, err := w.g.app.Token(ctx, inst)
	if err != nil {
		return err
	}
	return w.wt.Push(ctx, token, repo.PushOptions{})
}

// useFork points wt at the fork, with a token of the fork owner's
// installation.
func (g *Git) useFork(ctx context.Context, wt *repo.Worktree, f *workflow.Fork, reuse bool) error {
	token, err := g.app.Token(ctx, f.InstallationID)
	if err != nil {
		return fmt.Errorf("token for the fork %s/%s: %w", f.Owner, f.Repo, err)
	}
	if err := wt.UseFork(ctx, f.CloneURL, token, reuse); errors.Is(err, repo.ErrAuth) {
		return fmt.Errorf("the App's installation on %s cannot reach its fork %s/%s: give it access to all repositories "+
			"(or to this fork) in the installation's settings: %w", f.Owner, f.Owner, f.Repo, err)
	} else if err != nil {
		return fmt.Errorf("fork %s/%s: %w", f.Owner, f.Repo, err)
	}
	return nil
}

// authorFor is the bot's identity on the installation's forge, when its
// credentials name one.
func (g *Git) authorFor(installationID int64) (repo.Signature, bool) {
	if g.app == nil {
		return repo.Signature{}, false
	}
	return g.app.Author(installationID)
}
