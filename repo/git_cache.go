package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/issuesmith/issuesmith/internal/redact"
)

// Backend names the git implementation an operation used.
type Backend string

// Backends.
const (
	// BackendAuto uses go-git and falls back to the git CLI for a repository
	// go-git cannot handle: a fetch error go-git alone hits, a fetch whose Go
	// heap grows past CacheOptions.MaxGoGitHeapBytes (it is abandoned), or an
	// object store over CacheOptions.LargeRepoBytes.
	BackendAuto Backend = ""
	// BackendGoGit is go-git only.
	BackendGoGit Backend = "go-git"
	// BackendCLI is the git command-line tool.
	BackendCLI Backend = "git-cli"
)

// DefaultLargeRepoBytes is the object-store size from which BackendAuto
// hands a repository to the git CLI: go-git keeps pack indexes and deltas in
// Go memory and slows down well before git does.
const DefaultLargeRepoBytes = 1 << 30

// DefaultMaxGoGitHeapBytes is the Go heap growth at which BackendAuto
// abandons a go-git fetch for the git CLI, before go-git exhausts memory.
const DefaultMaxGoGitHeapBytes = 1 << 30

// CacheOptions configure a Cache.
type CacheOptions struct {
	// Backend forces an implementation; the zero value is BackendAuto.
	Backend Backend
	// LargeRepoBytes is the object-store size from which BackendAuto uses
	// the git CLI; 0 means DefaultLargeRepoBytes.
	LargeRepoBytes int64
	// MaxGoGitHeapBytes is the Go heap growth at which BackendAuto abandons
	// a go-git fetch for the CLI; 0 means DefaultMaxGoGitHeapBytes.
	MaxGoGitHeapBytes int64
	// MaxPacks is the pack count past which a mirror is repacked with git gc
	// after a fetch; 0 means DefaultMaxPacks.
	MaxPacks int
	// Logger receives one line per sync; nil discards. Lines carry the
	// repository URL (never a token), the backend and timings.
	Logger *slog.Logger
}

// Cache keeps one bare clone per remote repository under a directory and
// makes a separate worktree for every run from it. Syncing a cached
// repository fetches instead of cloning again. A Cache is safe for
// concurrent use; syncs of one repository are serialised. Its directory
// belongs to one process: worktrees found there that this process did not
// make are treated as left over from a crash.
type Cache struct {
	dir  string
	opts CacheOptions
	log  *slog.Logger

	mu    sync.Mutex
	locks map[string]*sync.Mutex // per mirror directory
	live  map[string]bool        // RunIDs with a worktree in this process
}

// NewCache returns a Cache keeping its clones and worktrees under dir, which
// is created if needed.
func NewCache(dir string, opts CacheOptions) (*Cache, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("git cache %s: %w", dir, err)
	}
	for _, sub := range []string{"mirrors", "runs"} {
		if err := os.MkdirAll(filepath.Join(abs, sub), 0o755); err != nil {
			return nil, fmt.Errorf("git cache: %w", err)
		}
	}
	if opts.LargeRepoBytes <= 0 {
		opts.LargeRepoBytes = DefaultLargeRepoBytes
	}
	if opts.MaxPacks <= 0 {
		opts.MaxPacks = DefaultMaxPacks
	}
	if opts.MaxGoGitHeapBytes <= 0 {
		opts.MaxGoGitHeapBytes = DefaultMaxGoGitHeapBytes
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Cache{dir: abs, opts: opts, log: log, locks: map[string]*sync.Mutex{}, live: map[string]bool{}}, nil
}

// SyncStats reports what a Sync did and what it cost.
type SyncStats struct {
	Backend  Backend       // implementation that did the work
	Cloned   bool          // true for the first fetch into an empty cache
	Duration time.Duration // wall time of the fetch
	// PeakHeapBytes is how far the Go heap grew during a go-git fetch, at
	// its highest (process-wide, sampled every 10ms); 0 for the CLI.
	PeakHeapBytes uint64
	// MaxRSSBytes is the git process's peak resident memory; 0 for go-git.
	MaxRSSBytes int64
	// SizeBytes is the object store's size on disk after the fetch.
	SizeBytes int64
	// Fallback says why the CLI did the work under BackendAuto, if it did.
	Fallback string
	// Rebuilt says why the mirror was removed and fetched again from
	// scratch ("" when it was not): a crash had left it unreadable.
	Rebuilt string
}

// mirror is one cached bare repository.
type mirror struct {
	url string // clean remote URL, no credentials
	dir string
}

// Sync clones the repository at rawURL into the cache, or fetches into the
// existing clone, with token (may be empty for public or local remotes) as
// HTTP basic auth. rawURL must not carry credentials. Errors wrap ErrAuth
// for a refused token; their text never holds the token.
func (c *Cache) Sync(ctx context.Context, rawURL, token string) (SyncStats, error) {
	m, err := c.mirrorFor(rawURL)
	if err != nil {
		return SyncStats{}, err
	}
	unlock := c.lock(m.dir)
	defer unlock()
	return c.sync(ctx, m, token)
}

// sync does Sync's work with the mirror locked. A mirror that a sync
// leaves unreadable (see mirrorUnreadable) is removed and fetched again,
// once.
func (c *Cache) sync(ctx context.Context, m mirror, token string) (SyncStats, error) {
	st, err := c.syncOnce(ctx, m, token)
	if ctx.Err() != nil || errors.Is(err, ErrAuth) {
		return st, err
	}
	why := mirrorUnreadable(ctx, m.dir, st.Backend)
	if why == "" {
		return st, err
	}
	c.log.WarnContext(ctx, "git mirror unreadable; fetching it again from scratch", "repo", m.url, "why", why)
	if rmErr := os.RemoveAll(m.dir); rmErr != nil {
		return st, fmt.Errorf("sync %s: remove unreadable mirror (%s): %w", m.url, why, rmErr)
	}
	st, err = c.syncOnce(ctx, m, token)
	st.Rebuilt = why
	return st, err
}

// syncOnce fetches into the mirror (cloning into an empty one) once.
func (c *Cache) syncOnce(ctx context.Context, m mirror, token string) (SyncStats, error) {
	red := redact.New(token)
	_, statErr := os.Stat(filepath.Join(m.dir, "HEAD"))
	cloned := errors.Is(statErr, fs.ErrNotExist)
	size := dirSize(filepath.Join(m.dir, "objects"))
	backend := c.opts.Backend
	var st SyncStats
	var err error
	switch {
	case backend == BackendCLI:
		st, err = c.syncCLI(ctx, m, token)
	case backend == BackendAuto && size > c.opts.LargeRepoBytes && cliAvailable():
		st, err = c.syncCLI(ctx, m, token)
		st.Fallback = fmt.Sprintf("object store is %s, over the %s go-git limit",
			humanSize(size), humanSize(c.opts.LargeRepoBytes))
	default:
		var budget int64 // no budget unless the CLI can take over
		if backend == BackendAuto && cliAvailable() {
			budget = c.opts.MaxGoGitHeapBytes
		}
		st, err = c.syncGoGit(ctx, m, token, budget)
		if err != nil && backend == BackendAuto && fallbackWorthy(ctx, err) && cliAvailable() {
			reason := "go-git failed: " + red.Text(err.Error())
			if cloned { // start the CLI from a clean directory
				_ = os.RemoveAll(m.dir)
			}
			st, err = c.syncCLI(ctx, m, token)
			st.Fallback = reason
		}
	}
	st.Cloned = cloned
	if err == nil {
		c.compact(ctx, m)
	}
	st.SizeBytes = dirSize(filepath.Join(m.dir, "objects"))
	if err != nil {
		err = red.Err(err)
		c.log.WarnContext(ctx, "git sync failed", "repo", m.url, "backend", st.Backend, "err", err)
		return st, fmt.Errorf("sync %s: %w", m.url, err)
	}
	c.log.InfoContext(ctx, "git sync", "repo", m.url, "backend", st.Backend, "cloned", st.Cloned,
		"duration", st.Duration, "size", st.SizeBytes, "peak_heap", st.PeakHeapBytes,
		"max_rss", st.MaxRSSBytes, "fallback", st.Fallback)
	return st, nil
}

// DefaultMaxPacks is the pack count past which a mirror is repacked: go-git
// adds one pack per fetch and never repacks, and lookups slow down with many.
const DefaultMaxPacks = 50

// compact repacks a mirror with many packs using git gc, with the mirror
// locked; run worktrees keep their hard links to the old files. Failure
// only costs speed, so it is logged, not returned.
func (c *Cache) compact(ctx context.Context, m mirror) {
	packs, _ := filepath.Glob(filepath.Join(m.dir, "objects", "pack", "*.pack"))
	if len(packs) <= c.opts.MaxPacks || !cliAvailable() {
		return
	}
	if _, err := runGit(ctx, m.dir, "", "gc", "--quiet"); err != nil {
		c.log.WarnContext(ctx, "git gc failed", "repo", m.url, "packs", len(packs), "err", err)
		return
	}
	c.log.InfoContext(ctx, "git gc", "repo", m.url, "packs", len(packs))
}

// fallbackWorthy reports whether a go-git failure may go better with git:
// not a cancellation, an auth refusal or a missing repository.
func fallbackWorthy(ctx context.Context, err error) bool {
	return ctx.Err() == nil && !errors.Is(err, ErrAuth) && !errors.Is(err, transport.ErrRepositoryNotFound) &&
		!errors.Is(err, transport.ErrEmptyRemoteRepository)
}

// fetchSpecs are the refspecs of a mirror: branches as remote-tracking refs
// (so a run can tell the remote tip it started from) and tags.
var fetchSpecs = []config.RefSpec{"+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"}

// syncGoGit fetches with go-git, creating the bare repository if needed. A
// fetch whose heap growth passes budget (when not 0) is cancelled.
func (c *Cache) syncGoGit(ctx context.Context, m mirror, token string, budget int64) (SyncStats, error) {
	st := SyncStats{Backend: BackendGoGit}
	start := time.Now()
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var over atomic.Bool
	peak, err := measurePeakHeap(uint64(budget), func() { over.Store(true); cancel() }, func() error {
		if err := ensureMirror(m); err != nil {
			return err
		}
		r, err := git.PlainOpen(m.dir)
		if err != nil {
			return err
		}
		err = r.FetchContext(ctx, &git.FetchOptions{
			RemoteName: "origin", RefSpecs: fetchSpecs, Auth: basicAuth(token),
			Tags: git.NoTags, Prune: true, Force: true,
		})
		if errors.Is(err, git.NoErrAlreadyUpToDate) {
			err = nil
		}
		if err == nil {
			err = setRemoteHead(ctx, r, token)
		}
		return mapTransportErr(err)
	})
	st.Duration, st.PeakHeapBytes = time.Since(start), peak
	if err != nil && over.Load() && parent.Err() == nil {
		err = fmt.Errorf("heap grew past %s, fetch abandoned", humanSize(budget))
	}
	return st, err
}

// setRemoteHead records the remote's default branch as
// refs/remotes/origin/HEAD, so an empty base ref means "the default branch".
func setRemoteHead(ctx context.Context, r *git.Repository, token string) error {
	rem, err := r.Remote("origin")
	if err != nil {
		return err
	}
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: basicAuth(token)})
	if err != nil {
		return err
	}
	for _, ref := range refs {
		if ref.Name() == plumbing.HEAD && ref.Type() == plumbing.SymbolicReference {
			target := plumbing.NewRemoteReferenceName("origin", ref.Target().Short())
			return r.Storer.SetReference(plumbing.NewSymbolicReference("refs/remotes/origin/HEAD", target))
		}
	}
	return nil
}

// syncCLI fetches with the git CLI, creating the bare repository if needed.
func (c *Cache) syncCLI(ctx context.Context, m mirror, token string) (SyncStats, error) {
	st := SyncStats{Backend: BackendCLI}
	start := time.Now()
	defer func() { st.Duration = time.Since(start) }()
	if err := ensureMirror(m); err != nil {
		return st, err
	}
	// Auto gc stays in the foreground, under the mirror lock, so it never
	// repacks while a run links the object files.
	args := []string{"-c", "gc.autoDetach=false", "fetch", "--prune", "--no-tags", "--quiet", "origin", string(fetchSpecs[0]), string(fetchSpecs[1])}
	res, err := runGit(ctx, m.dir, token, args...)
	st.MaxRSSBytes = res.maxRSS
	if err != nil {
		return st, cliAuthErr(res.stderr, err)
	}
	if _, err := runGit(ctx, m.dir, token, "remote", "set-head", "origin", "--auto"); err != nil {
		return st, err
	}
	st.Duration = time.Since(start)
	return st, nil
}

// basicAuth is the go-git auth for an installation token; nil without one.
func basicAuth(token string) transport.AuthMethod {
	if token == "" {
		return nil
	}
	return &githttp.BasicAuth{Username: gitUser, Password: token}
}

// mapTransportErr wraps go-git's auth errors in ErrAuth.
func mapTransportErr(err error) error {
	if errors.Is(err, transport.ErrAuthenticationRequired) || errors.Is(err, transport.ErrAuthorizationFailed) {
		return fmt.Errorf("%w: %v", ErrAuth, err)
	}
	return err
}

// unsafeName matches characters not kept in cache directory names.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// mirrorFor checks rawURL and names its cache directory.
func (c *Cache) mirrorFor(rawURL string) (mirror, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return mirror{}, fmt.Errorf("remote URL is not valid: %w", errors.New("cannot parse"))
	}
	if u.User != nil {
		return mirror{}, fmt.Errorf("remote URL %s carries credentials; pass the token separately", u.Redacted())
	}
	if u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "file" {
		return mirror{}, fmt.Errorf("remote URL %s: scheme %q is not supported (http, https, file)", u.Redacted(), u.Scheme)
	}
	key := strings.Trim(unsafeName.ReplaceAllString(u.Host+"/"+strings.TrimSuffix(u.Path, ".git"), "_"), "_.")
	return mirror{url: u.String(), dir: filepath.Join(c.dir, "mirrors", key+".git")}, nil
}

// lock takes the per-mirror lock and returns its release.
func (c *Cache) lock(dir string) func() {
	c.mu.Lock()
	l, ok := c.locks[dir]
	if !ok {
		l = &sync.Mutex{}
		c.locks[dir] = l
	}
	c.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// dirSize sums the sizes of the regular files under dir (0 if missing).
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
