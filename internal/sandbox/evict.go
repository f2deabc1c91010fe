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
	c.mu.Unlock()
	var total int64
	for i := range mods {
		if mods[i].e.Size == 0 {
			mods[i].e.Size = sizeOf(append([]string{mods[i].e.Dir}, mods[i].e.Files...)...)
			c.mu.Lock()
			if e := c.index[mods[i].key]; e != nil {
				e.Size = mods[i].e.Size
			}
			c.mu.Unlock()
		}
		total += mods[i].e.Size
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].e.Used.Before(mods[j].e.Used) })
	c.mu.Lock()
	budget := c.opts.ModuleBudget
	c.mu.Unlock()
	for _, m := range mods {
		if budget <= 0 || total <= budget {
			break
		}
		if c.leased("mod:" + m.key) {
			rep.KeptInUse++
			continue
		}
		if err := removeTree(m.e.Dir); err != nil {
			return err
		}
		for _, f := range m.e.Files {
			_ = os.Remove(f)
		}
		total -= m.e.Size
		rep.Freed += m.e.Size
		rep.Modules++
		c.mu.Lock()
		delete(c.index, m.key)
		c.downloaded = map[string][]string{}
		c.mu.Unlock()
	}
	rep.ModuleBytes = total
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
	type repoCache struct {
		dir  string
		used time.Time
		size int64
	}
	var repos []repoCache
	var total int64
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil || !e.IsDir() {
			continue
		}
		dir := filepath.Join(c.root, "repos", e.Name())
		rc := repoCache{dir: dir, used: fi.ModTime(), size: sizeOf(dir)}
		repos = append(repos, rc)
		total += rc.size
	}
	sort.Slice(repos, func(i, j int) bool { return repos[i].used.Before(repos[j].used) })
	c.mu.Lock()
	budget := c.opts.BuildBudget
	c.mu.Unlock()
	for _, r := range repos {
		if budget <= 0 || total <= budget {
			break
		}
		if c.leased("repo:" + r.dir) {
			rep.KeptInUse++
			continue
		}
		if err := removeTree(r.dir); err != nil {
			return err
		}
		total -= r.size
		rep.Freed += r.size
		rep.Repos++
	}
	rep.BuildBytes = total
	return nil
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
