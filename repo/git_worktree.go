package repo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// BranchForIssue is the branch a run for issue n works on.
func BranchForIssue(n int) string { return fmt.Sprintf("issuesmith/issue-%d", n) }

// PrepareOptions say which repository and ref a run works on.
type PrepareOptions struct {
	URL   string // remote URL without credentials
	Token string // installation token for fetching; may be empty
	// Base is the branch, tag or commit to start from; empty means the
	// remote's default branch.
	Base string
	// Branch is the branch the run commits to, e.g. BranchForIssue(n).
	Branch string
	// RunID names the worktree; it must be unique among live runs and use
	// only letters, digits, ".", "_" and "-".
	RunID string
	// Reuse starts from the remote Branch when it exists (a revise run adds
	// commits to the PR's branch); otherwise the run starts from Base.
	Reuse bool
}

// Worktree is one run's own checkout, made from the cache: its object files
// are hard links to the cached clone's (copies across file systems), and its
// index, refs and files are its own, so runs never share a checkout and a
// later fetch or gc in the cache cannot break it. It is not safe for
// concurrent use.
//
// The git directory lives beside the work tree, not in it (runs/<id>/git
// and runs/<id>/tree): sandboxed commands get the work tree alone, so no
// file they write is ever read by the bot's git as configuration, a hook
// or an object, and the mirror's hard-linked objects are out of their
// reach. Every git operation names both places explicitly; a .git a
// command leaves in the tree is data to drop, never a repository.
type Worktree struct {
	// Dir is the work tree's absolute path (the files only; no .git).
	Dir string
	// Branch is the local and remote branch name (without refs/heads/).
	Branch string
	// Start is the commit the run started from.
	Start string
	// RemoteTip is the remote Branch's tip when the run fetched, "" if the
	// branch did not exist; Push refuses when the remote moved from it.
	RemoteTip string
	// Backend is the implementation the worktree's git operations use.
	Backend Backend
	// Sync reports the fetch that prepared the worktree.
	Sync SyncStats

	// url is where the branch is fetched from and pushed to: the bot's own
	// record of the repository (or its fork), never a remote read back
	// from a configuration file.
	url    string
	gitDir string
	repo   *git.Repository
	cache  *Cache
	runID  string
}

// validRunID matches acceptable RunIDs.
var validRunID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// Prepare syncs the repository (clone or fetch), resolves the start commit
// and makes a fresh worktree for the run on a local branch opts.Branch,
// checked out. Errors wrap ErrRefNotFound for an unknown base and ErrAuth
// for a refused token.
func (c *Cache) Prepare(ctx context.Context, opts PrepareOptions) (*Worktree, error) {
	if !validRunID.MatchString(opts.RunID) {
		return nil, fmt.Errorf("prepare worktree: run id %q is not a safe directory name", opts.RunID)
	}
	if err := checkBranchName(opts.Branch); err != nil {
		return nil, fmt.Errorf("prepare worktree: %w", err)
	}
	m, err := c.mirrorFor(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("prepare worktree: %w", err)
	}
	dir, err := c.claimRun(opts.RunID)
	if err != nil {
		return nil, fmt.Errorf("prepare worktree: %w", err)
	}
	unlock := c.lock(m.dir)
	st, err := c.sync(ctx, m, opts.Token)
	var start, tip string
	if err == nil {
		start, tip, err = resolveStart(m.dir, opts)
	}
	gitDir, tree := filepath.Join(dir, "git"), filepath.Join(dir, "tree")
	if err == nil {
		err = linkObjects(filepath.Join(m.dir, "objects"), filepath.Join(gitDir, "objects"))
	}
	if err == nil {
		err = os.Mkdir(tree, 0o755)
	}
	unlock()
	if err != nil {
		return nil, fmt.Errorf("prepare worktree: %w", errors.Join(err, c.releaseRun(opts.RunID, dir)))
	}
	wt := &Worktree{Dir: tree, Branch: opts.Branch, Start: start, RemoteTip: tip, Backend: st.Backend, Sync: st,
		url: m.url, gitDir: gitDir, cache: c, runID: opts.RunID}
	if err := wt.create(ctx); err != nil {
		return nil, fmt.Errorf("prepare worktree: %w", errors.Join(err, c.releaseRun(opts.RunID, dir)))
	}
	return wt, nil
}

// resolveStart finds the commit to start from and the remote branch tip in
// the mirror.
func resolveStart(mirrorDir string, opts PrepareOptions) (start, tip string, err error) {
	r, err := git.PlainOpen(mirrorDir)
	if err != nil {
		return "", "", err
	}
	if ref, err := r.Reference(plumbing.NewRemoteReferenceName("origin", opts.Branch), true); err == nil {
		tip = ref.Hash().String()
	}
	if opts.Reuse && tip != "" {
		return tip, tip, nil
	}
	candidates := []string{"refs/remotes/origin/HEAD"}
	if opts.Base != "" {
		candidates = []string{"refs/remotes/origin/" + opts.Base, "refs/tags/" + opts.Base, opts.Base}
	}
	for _, rev := range candidates {
		h, err := r.ResolveRevision(plumbing.Revision(rev + "^{commit}"))
		if err == nil {
			return h.String(), tip, nil
		}
	}
	base := opts.Base
	if base == "" {
		base = "the default branch"
	}
	return "", "", fmt.Errorf("base %s: %w", base, ErrRefNotFound)
}

// create lays out the run's repository around the linked objects: the
// branch at Start, origin pointing at the clean URL, then the files checked
// out. The repository is initialised without a work tree (go-git would
// write a .git file into it) and opened with the work tree beside it.
func (wt *Worktree) create(ctx context.Context) error {
	st := filesystem.NewStorage(osfs.New(wt.gitDir), cache.NewObjectLRUDefault())
	r, err := git.Init(st, nil)
	if err != nil {
		return err
	}
	cfg, err := r.Config()
	if err != nil {
		return err
	}
	cfg.Core.IsBare = false
	if err := r.SetConfig(cfg); err != nil {
		return err
	}
	if r, err = git.Open(st, osfs.New(wt.Dir)); err != nil {
		return err
	}
	wt.repo = r
	if _, err := r.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{wt.url}, Fetch: fetchSpecs[:1]}); err != nil {
		return err
	}
	branch := plumbing.NewBranchReferenceName(wt.Branch)
	refs := []*plumbing.Reference{
		plumbing.NewHashReference(branch, plumbing.NewHash(wt.Start)),
		plumbing.NewSymbolicReference(plumbing.HEAD, branch),
	}
	if wt.RemoteTip != "" {
		refs = append(refs, plumbing.NewHashReference(plumbing.NewRemoteReferenceName("origin", wt.Branch), plumbing.NewHash(wt.RemoteTip)))
	}
	for _, ref := range refs {
		if err := r.Storer.SetReference(ref); err != nil {
			return err
		}
	}
	if wt.Backend == BackendCLI {
		_, err := wt.cli("").run(ctx, "reset", "--hard", "--quiet", wt.Start)
		return err
	}
	w, err := r.Worktree()
	if err != nil {
		return err
	}
	return w.Reset(&git.ResetOptions{Commit: plumbing.NewHash(wt.Start), Mode: git.HardReset})
}

// GitDir is the worktree's git directory, beside Dir (never visible to a
// sandboxed command).
func (wt *Worktree) GitDir() string { return wt.gitDir }

// cli is a git command on this worktree: its git directory and work tree
// named explicitly, token (may be empty) for the remote.
func (wt *Worktree) cli(token string) gitCmd {
	return gitCmd{dir: wt.Dir, gitDir: wt.gitDir, workTree: wt.Dir, token: token}
}

// Workspace opens the worktree as a confined Workspace.
// Its git commands name the worktree's git directory explicitly.
func (wt *Worktree) Workspace() (*Workspace, error) {
	ws, err := OpenWorkspace(wt.Dir)
	if err != nil {
		return nil, err
	}
	ws.gitDir, ws.base = wt.gitDir, wt.Start
	return ws, nil
}

// Head returns the commit the branch points at now.
func (wt *Worktree) Head() (string, error) {
	ref, err := wt.repo.Reference(plumbing.NewBranchReferenceName(wt.Branch), false)
	if err != nil {
		return "", fmt.Errorf("head of %s: %w", wt.Branch, err)
	}
	return ref.Hash().String(), nil
}

// Remove deletes the worktree directory and frees its RunID. The cached
// clone stays.
func (wt *Worktree) Remove() error {
	if err := wt.cache.releaseRun(wt.runID, filepath.Dir(wt.Dir)); err != nil {
		return fmt.Errorf("remove worktree: %w", err)
	}
	return nil
}

// claimRun reserves a RunID for this process and returns its directory. A
// directory left by a run that is not live here (the process that made it
// died) is stale and removed; an id live in this process is refused.
func (c *Cache) claimRun(id string) (string, error) {
	dir := filepath.Join(c.dir, "runs", id)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live[id] {
		return "", fmt.Errorf("run %s already has a worktree at %s", id, dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("remove stale worktree %s: %w", dir, err)
	}
	c.live[id] = true
	return dir, nil
}

// releaseRun deletes a run's directory and frees its id.
func (c *Cache) releaseRun(id, dir string) error {
	err := os.RemoveAll(dir)
	c.mu.Lock()
	delete(c.live, id)
	c.mu.Unlock()
	return err
}

// checkBranchName refuses names git would reject or that could be read as an
// option or a path escape.
func checkBranchName(b string) error {
	if b == "" {
		return errors.New("branch name is empty")
	}
	if err := plumbing.NewBranchReferenceName(b).Validate(); err != nil || b[0] == '-' {
		return fmt.Errorf("branch name %q is not valid", b)
	}
	return nil
}
