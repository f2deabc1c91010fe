package repo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"sort"
	"sync"
)

// grepRun is one search: GOMAXPROCS workers share a stack of directories;
// each worker lists a directory (one openat under a sub-root), pushes its
// subdirectories and searches its files, so walking and searching overlap.
type grepRun struct {
	w                *Workspace
	m                *matcher
	limit            int
	include, exclude *globSet

	q     dirQueue
	mu    sync.Mutex // guards hits and stats
	hits  []fileHits
	stats grepStats
}

// dirItem is a directory waiting to be searched with the ignore rules that
// apply to it (its own .gitignore is loaded when it is listed).
type dirItem struct {
	rel string
	ig  *ignorer
}

// search searches start (a clean relative path, file or directory) and
// returns the files with matches sorted by path. A start that is a file is
// searched even if ignored.
func (g *grepRun) search(ctx context.Context, start string) ([]fileHits, grepStats, error) {
	if err := g.w.checkSubmodule(start); err != nil {
		return nil, grepStats{}, err
	}
	st, err := g.w.stat(start)
	if err != nil {
		return nil, grepStats{}, err
	}
	if !st.IsDir() {
		sc := &scratch{}
		// Opened from the workspace root, so a symlink to elsewhere in the
		// repository resolves as read_file resolves it.
		g.hits = g.searchFiles(".", []string{start}, sc, &g.stats, nil)
		return g.hits, g.stats, nil
	}
	g.q.cond.L = &g.q.mu
	g.q.push(dirItem{rel: start, ig: g.w.newIgnorer(start)})
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() { g.work(ctx) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, g.stats, fmt.Errorf("grep %s: %w", start, err)
	}
	sort.Slice(g.hits, func(i, j int) bool { return g.hits[i].path < g.hits[j].path })
	return g.hits, g.stats, nil
}

// work is one worker's loop.
func (g *grepRun) work(ctx context.Context) {
	var local []fileHits
	var ls grepStats
	sc := &scratch{}
	for {
		it, ok := g.q.pop()
		if !ok {
			break
		}
		if ctx.Err() == nil {
			local = g.searchDir(it, sc, &ls, local)
		}
		g.q.done()
	}
	g.mu.Lock()
	g.hits = append(g.hits, local...)
	g.stats.searched += ls.searched
	g.stats.binary += ls.binary
	g.stats.huge += ls.huge
	g.mu.Unlock()
}

// searchDir lists one directory, queues its subdirectories and searches its
// files, honouring ignore rules, skipDirs, git submodules and the globs. A directory that
// cannot be opened under the root (it vanished, or a symlink leads out) is
// skipped.
func (g *grepRun) searchDir(it dirItem, sc *scratch, st *grepStats, out []fileHits) []fileHits {
	entries, err := g.w.readDir(it.rel)
	if err != nil {
		return out
	}
	ig := it.ig
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			ig = ig.with(g.w, it.rel)
			break
		}
	}
	var names []string
	for _, e := range entries {
		rel := path.Join(it.rel, e.Name())
		switch {
		case e.IsDir():
			if !skipDirs[e.Name()] && !g.w.isSubmodule(rel) && !ig.ignored(rel, true) && (g.exclude.empty() || !g.exclude.match(rel)) {
				g.q.push(dirItem{rel: rel, ig: ig})
			}
		case e.Type().IsRegular():
			if !ig.ignored(rel, false) && (g.include.empty() || g.include.match(rel)) &&
				(g.exclude.empty() || !g.exclude.matchAnyDir(rel)) {
				names = append(names, e.Name())
			}
		}
	}
	return g.searchFiles(it.rel, names, sc, st, out)
}

// searchFiles searches the named files of directory dir, appending files
// with matches to out.
func (g *grepRun) searchFiles(dir string, names []string, sc *scratch, st *grepStats, out []fileHits) []fileHits {
	if len(names) == 0 {
		return out
	}
	sub := g.w.root
	if dir != "." {
		r, err := g.w.root.OpenRoot(dir)
		if err != nil {
			return out
		}
		defer r.Close()
		sub = r
	}
	for _, name := range names {
		data, ok := readForGrep(sub, name, sc, st)
		if !ok {
			continue
		}
		h := fileHits{path: path.Join(dir, name)}
		g.m.find(data, sc, func(n int, _ []byte) {
			h.count++
			if len(h.lines) < g.limit {
				h.lines = append(h.lines, n)
			}
		})
		if h.count > 0 {
			out = append(out, h)
		}
	}
	return out
}

// readDir lists a directory under the root without following a final
// symlink.
func (w *Workspace) readDir(rel string) ([]os.DirEntry, error) {
	f, err := w.root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// readForGrep reads a regular text file into the worker's buffer, counting
// binary and oversized files it skips.
func readForGrep(sub *os.Root, name string, sc *scratch, st *grepStats) ([]byte, bool) {
	f, err := sub.Open(name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil, false
	}
	if info.Size() > maxGrepFileBytes {
		st.huge++
		return nil, false
	}
	size := int(info.Size())
	if cap(sc.read) < size+1 {
		sc.read = make([]byte, size+1, size+size/2+1)
	}
	buf := sc.read[:size+1]
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, false
	}
	data := buf[:n]
	if IsBinary(data) {
		st.binary++
		return nil, false
	}
	st.searched++
	return data, true
}

// dirQueue is a stack of directories shared by the workers. pop blocks
// while the stack is empty but some worker may still push; it reports false
// once the stack is empty and no worker is busy.
type dirQueue struct {
	mu    sync.Mutex
	cond  sync.Cond // L is mu, set before first use
	items []dirItem
	busy  int
}

// push adds a directory and wakes one waiting worker.
func (q *dirQueue) push(it dirItem) {
	q.mu.Lock()
	q.items = append(q.items, it)
	q.mu.Unlock()
	q.cond.Signal()
}

// pop takes a directory; the caller must call done after handling it.
func (q *dirQueue) pop() (dirItem, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && q.busy > 0 {
		q.cond.Wait()
	}
	if len(q.items) == 0 {
		return dirItem{}, false
	}
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	q.busy++
	return it, true
}

// done marks a popped directory handled, releasing the waiters when the
// search is over.
func (q *dirQueue) done() {
	q.mu.Lock()
	q.busy--
	if q.busy == 0 && len(q.items) == 0 {
		q.cond.Broadcast()
	}
	q.mu.Unlock()
}
