package sandbox

import (
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// TrimReport is what one Trim removed and kept.
type TrimReport struct {
	Modules, Repos int   // module versions and repository caches removed
	Freed          int64 // bytes
	ModuleBytes    int64 // the module cache after the trim
	BuildBytes     int64 // the repositories' caches after the trim
	KeptInUse      int   // entries over budget that running commands held
}

// Trim brings the module cache and the repositories' caches under their
// budgets, removing what went unused longest first — module versions by
// the last run that needed them, repository caches by their last run —
// and never what a running command holds.
func (c *Caches) Trim() (TrimReport, error) {
	c.trimMu.Lock()
	defer c.trimMu.Unlock()
	var rep TrimReport
	if err := c.trimModules(&rep); err != nil {
		return rep, err
	}
	err := c.trimRepos(&rep)
	return rep, err
}

// trimModules evicts module versions, least recently used first.
func (c *Caches) trimModules(rep *TrimReport) error {
	c.mu.Lock()
	type mod struct {
		key string
		e   modEntry
	}
	var mods []mod
	for k, e := range c.index {
		mods = append(mods, mod{k, *e})
	}
	budget := c.opts.ModuleBudget
	c.mu.Unlock()
	var entries []lruEntry
	for i := range mods {
		m := &mods[i]
		if m.e.Size == 0 {
			m.e.Size = sizeOf(append([]string{m.e.Dir}, m.e.Files...)...)
			c.mu.Lock()
			if e := c.index[m.key]; e != nil {
				e.Size = m.e.Size
			}
			c.mu.Unlock()
		}
		entries = append(entries, lruEntry{lease: "mod:" + m.key, used: m.e.Used, size: m.e.Size, remove: func() error {
			if err := removeTree(m.e.Dir); err != nil {
				return err
			}
			for _, f := range m.e.Files {
				_ = os.Remove(f)
			}
			c.mu.Lock()
			delete(c.index, m.key)
			c.downloaded = map[string][]string{}
			c.mu.Unlock()
			return nil
		}})
	}
	removed, total, err := c.evictLRU(entries, budget, rep)
	rep.Modules += removed
	rep.ModuleBytes = total
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.saveIndex()
}

// trimRepos evicts whole repository caches, least recently used first.
func (c *Caches) trimRepos(rep *TrimReport) error {
	ents, err := os.ReadDir(filepath.Join(c.root, "repos"))
	if err != nil {
		return err
	}
	var entries []lruEntry
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil || !e.IsDir() {
			continue
		}
		dir := filepath.Join(c.root, "repos", e.Name())
		entries = append(entries, lruEntry{lease: "repo:" + dir, used: fi.ModTime(), size: sizeOf(dir),
			remove: func() error { return removeTree(dir) }})
	}
	c.mu.Lock()
	budget := c.opts.BuildBudget
	c.mu.Unlock()
	removed, total, err := c.evictLRU(entries, budget, rep)
	rep.Repos += removed
	rep.BuildBytes = total
	return err
}

// lruEntry is one cache entry Trim may evict: its lease key, last use,
// size and how to remove it.
type lruEntry struct {
	lease  string
	used   time.Time
	size   int64
	remove func() error
}

// evictLRU is Trim's one rule: it removes entries, least recently used
// first, until their total is within budget (none when budget <= 0),
// never one a running command holds (counted in rep.KeptInUse). It
// returns how many it removed and the total left, adding what it freed to
// rep.Freed.
func (c *Caches) evictLRU(entries []lruEntry, budget int64, rep *TrimReport) (removed int, total int64, err error) {
	for _, e := range entries {
		total += e.size
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].used.Before(entries[j].used) })
	for _, e := range entries {
		if budget <= 0 || total <= budget {
			break
		}
		if c.leased(e.lease) {
			rep.KeptInUse++
			continue
		}
		if err := e.remove(); err != nil {
			return removed, total, err
		}
		total -= e.size
		rep.Freed += e.size
		removed++
	}
	return removed, total, nil
}

// sizeOf is the bytes of the files under each path.
func sizeOf(paths ...string) int64 {
	var n int64
	for _, p := range paths {
		if p == "" {
			continue
		}
		_ = filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() {
				n += fi.Size()
			}
			return nil
		})
	}
	return n
}

// removeTree removes dir, first making its read-only folders (the go
// tool extracts modules read-only) writable.
func removeTree(dir string) error {
	if dir == "" {
		return nil
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// SetBudgets changes the module and build cache budgets (0: no bound).
func (c *Caches) SetBudgets(modules, build int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opts.ModuleBudget, c.opts.BuildBudget = modules, build
}

// trimEvery is how often a finished command may start a background Trim.
const trimEvery = 5 * time.Minute

// autoTrim trims in the background when budgets are set and the last
// trim is older than trimEvery: `bot serve` stays within its budgets
// without a schedule of its own.
func (c *Caches) autoTrim() {
	c.mu.Lock()
	due := (c.opts.ModuleBudget > 0 || c.opts.BuildBudget > 0) && time.Since(c.lastTrim) > trimEvery
	if due {
		c.lastTrim = time.Now()
	}
	c.mu.Unlock()
	if due {
		go func() {
			if rep, err := c.Trim(); err != nil {
				slog.Warn("sandbox caches: trim", "err", err)
			} else if rep.Freed > 0 {
				slog.Info("sandbox caches: trimmed", "modules", rep.Modules, "repos", rep.Repos, "freed", Size(rep.Freed))
			}
		}()
	}
}
