//go:build linux

package sandbox

import (
	"io/fs"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// disk measures how much a sandbox's own writable paths (its working
// tree, Policy.Writable, its repository's caches) grew while it runs: the
// blocks their files hold, walked in the background (a hard-linked file
// once), plus the deleted files its processes hold open on those file
// systems (set by the watchdog). Another run writing to the same disk
// changes none of it.
//
// A walk costs a stat per file, so walks are spaced by thirty times the
// last one's length (at least walkMin); between walks the file systems'
// free space is read every watchEvery, and when they lost more than the
// budget left since the last walk, the next walk starts at once.
type disk struct {
	paths  []string
	devs   map[uint64]bool
	limit  int64
	last   atomic.Int64
	del    atomic.Int64
	quit   chan struct{}
	wg     sync.WaitGroup
	stopMu sync.Once
}

const walkMin = time.Second

func startDisk(paths []string, limit int64) *disk {
	d := &disk{paths: paths, devs: map[uint64]bool{}, limit: limit, quit: make(chan struct{})}
	for _, p := range paths {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil {
			d.devs[st.Dev] = true
		}
	}
	d.wg.Add(1)
	go d.run()
	return d
}

// grown is the growth measured so far.
func (d *disk) grown() int64 { return d.last.Load() + d.del.Load() }

// setDeleted records the deleted-but-open files' bytes.
func (d *disk) setDeleted(n int64) { d.del.Store(n) }

// owns reports whether dev holds one of the writable paths.
func (d *disk) owns(dev uint64) bool { return d.devs[dev] }

func (d *disk) stop() {
	d.stopMu.Do(func() { close(d.quit) })
	d.wg.Wait()
}

func (d *disk) run() {
	defer d.wg.Done()
	t0 := time.Now()
	base := d.walk()
	took := time.Since(t0)
	free0 := d.free()
	lastWalk := time.Now()
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	for {
		select {
		case <-d.quit:
			return
		case <-tick.C:
		}
		since := time.Since(lastWalk)
		due := since >= max(walkMin, 30*took)
		// The disk lost more than is left of the budget: walk soon.
		if lost := free0 - d.free(); !due && lost > d.limit-d.last.Load() && since >= 2*took {
			due = true
		}
		if !due {
			continue
		}
		t0 = time.Now()
		n := d.walk()
		took = time.Since(t0)
		lastWalk = time.Now()
		free0 = d.free()
		if g := n - base; g > 0 {
			d.last.Store(g)
		} else {
			d.last.Store(0)
		}
	}
}

// walk sums the bytes the paths' files and folders hold.
func (d *disk) walk() int64 {
	var n int64
	seen := map[[2]uint64]bool{}
	for _, root := range d.paths {
		_ = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			select {
			case <-d.quit:
				return filepath.SkipAll
			default:
			}
			var st syscall.Stat_t
			if syscall.Lstat(path, &st) != nil {
				return nil
			}
			if st.Nlink > 1 && st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
				k := [2]uint64{st.Dev, st.Ino}
				if seen[k] {
					return nil
				}
				seen[k] = true
			}
			n += st.Blocks * 512
			return nil
		})
	}
	return n
}

// free is the free space of the paths' file systems together.
func (d *disk) free() int64 {
	var n int64
	seen := map[uint64]bool{}
	for _, p := range d.paths {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) != nil || seen[st.Dev] {
			continue
		}
		seen[st.Dev] = true
		n += freeBytes(p)
	}
	return n
}

// freeBytes is the space unprivileged users may still use on path's file
// system, or 0 when it cannot be read.
func freeBytes(path string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0
	}
	return int64(st.Bavail) * st.Bsize
}
