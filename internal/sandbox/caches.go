package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Where a sandboxed command sees the caches (the same places for every
// repository, so the build cache's keys do not depend on the host layout).
const (
	ModCacheDir   = "/issuesmith/gomod"    // GOMODCACHE, read-only
	BuildCacheDir = "/issuesmith/go-build" // GOCACHE of this repository
	UserCacheDir  = "/issuesmith/cache"    // XDG_CACHE_HOME (gopls, pyright), npm and pip caches of this repository
	StableWorkDir = "/issuesmith/work"     // the working tree again, with Policy.StableDir
)

// Caches are the caches the bot owns under one folder:
//
//	gomod/            the Go module cache: written only by the bot's `go mod
//	                  download` outside the sandbox, read-only inside
//	modules.json      which module versions the runs used, and when
//	repos/<key>/      one repository's writable caches: go-build/ and cache/
//
// A repository's build cache is its own (not an installation's: one
// installation's repositories have different people merging them, and a
// poisoned compiled package would pass from one's checks into another's
// pull request). Caches counts which entries running commands use (its
// leases) so Trim never removes them; one process should own a folder.
type Caches struct {
	root string
	opts CacheOptions

	mu         sync.Mutex
	leases     map[string]int       // "repo:<dir>" or "mod:<path@version>" → running commands
	index      map[string]*modEntry // path@version → where and when last used
	downloaded map[string][]string  // go.mod+go.sum digest → module keys (skips a repeated download)
	lastTrim   time.Time
	trimMu     sync.Mutex // one Trim at a time
}

// CacheOptions configure Caches.
type CacheOptions struct {
	// ModuleBudget and BuildBudget bound the module cache and the
	// repositories' caches together, in bytes (Trim); 0 is no bound.
	ModuleBudget int64
	BuildBudget  int64
	// MinFree is the free space the caches' disk must keep: below it no
	// sandboxed command starts (a *LowSpaceError); 0 is no floor.
	MinFree int64
	// DownloadEnv is the go tool's settings for the bot's module download
	// (GOPROXY, GOSUMDB, GOPRIVATE, GONOPROXY): the operator's, never a
	// repository's. GONOSUMDB, GONOSUMCHECK, GOINSECURE and GOFLAGS are
	// dropped from it, so every module is checked against go.sum and the
	// checksum database as configured.
	DownloadEnv []string
}

// NewCaches opens (creating) the caches under root.
func NewCaches(root string, opts CacheOptions) (*Caches, error) {
	if root == "" || !filepath.IsAbs(root) {
		return nil, fmt.Errorf("sandbox caches: %q is not an absolute path", root)
	}
	for _, d := range []string{"gomod", "repos"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return nil, fmt.Errorf("sandbox caches: %w", err)
		}
	}
	c := &Caches{root: root, opts: opts, leases: map[string]int{}, downloaded: map[string][]string{}, lastTrim: time.Now()}
	if err := c.loadIndex(); err != nil {
		return nil, err
	}
	return c, nil
}

// CheckSpace is CheckSpace(root, MinFree): nil, or the *LowSpaceError
// that refuses a run.
func (c *Caches) CheckSpace() error { return CheckSpace(c.root, c.opts.MinFree) }

// Root is the caches' folder.
func (c *Caches) Root() string { return c.root }

// ModCache is the host path of the module cache (read-only in sandboxes).
func (c *Caches) ModCache() string { return filepath.Join(c.root, "gomod") }

// RepoDir is the host folder of repository key's writable caches.
func (c *Caches) RepoDir(key string) string {
	return filepath.Join(c.root, "repos", repoDirName(key))
}

// repoDirName is a readable, collision-free folder name for key.
func repoDirName(key string) string {
	sum := sha256.Sum256([]byte(key))
	var b strings.Builder
	for _, r := range key {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 60 {
			break
		}
	}
	return strings.Trim(b.String(), ".") + "-" + hex.EncodeToString(sum[:6])
}

// leaseRepo marks repository key's caches in use (Trim keeps them) and
// stamps their last use; release ends the lease.
func (c *Caches) leaseRepo(key string) (dir string, release func(), err error) {
	dir = c.RepoDir(key)
	for _, d := range []string{"go-build", "cache"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return "", nil, fmt.Errorf("sandbox caches: %w", err)
		}
	}
	now := time.Now()
	_ = os.Chtimes(dir, now, now)
	end := c.lease([]string{"repo:" + dir})
	return dir, func() {
		end()
		now := time.Now()
		_ = os.Chtimes(dir, now, now)
		c.autoTrim()
	}, nil
}

// lease counts keys in use until the returned func is called (once).
func (c *Caches) lease(keys []string) func() {
	c.mu.Lock()
	for _, k := range keys {
		c.leases[k]++
	}
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			for _, k := range keys {
				if c.leases[k]--; c.leases[k] <= 0 {
					delete(c.leases, k)
				}
			}
		})
	}
}

// leased reports whether a running command uses key.
func (c *Caches) leased(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.leases[key] > 0
}

// RepoKey is the cache key of a command whose caller named no repository
// (Policy.Repo ""): the working directory's absolute path, "local:" and
// the path — a user's own checkout under bot solve, a test's folder.
// Nothing in the tree is read: a tree's git configuration is written by
// the commands that ran in it, so a key taken from it (its origin URL, as
// before) let one repository's checks choose, and poison, another's build
// cache. Callers that run repositories' code name the repository by their
// own record (the App: installation and full name; bot replay: the
// instance's repository).
func RepoKey(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = filepath.Clean(dir)
	}
	return "local:" + abs
}

var (
	defaultOnce   sync.Once
	defaultCaches *Caches
)

// DefaultCaches are the caches of a Policy without Caches: under the
// user's cache folder (issuesmith/sandbox), downloading with this
// process's GOPROXY and GOSUMDB, without budgets; nil when there is no
// such folder (every cache is then a fresh folder in the sandbox's /tmp).
func DefaultCaches() *Caches {
	defaultOnce.Do(func() {
		base, err := os.UserCacheDir()
		if err != nil || !filepath.IsAbs(base) {
			return
		}
		defaultCaches, _ = NewCaches(filepath.Join(base, "issuesmith", "sandbox"), CacheOptions{DownloadEnv: HostGoEnv()})
	})
	return defaultCaches
}
