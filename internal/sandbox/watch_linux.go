//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// watchEvery is how often the watchdog counts a sandbox's processes; it
// looks at memory every memEvery ticks.
const (
	watchEvery = 25 * time.Millisecond
	memEvery   = 4
)

// watch is one command's watchdog, what bounds a sandbox as a whole where
// cgroups are not delegated (RLIMIT_NPROC does not hold a bot run as
// root, and rlimits are per process). Every tick it counts the sandbox's
// processes and threads; every memEvery ticks its memory: proportional
// set size (smaps_rollup's Pss, so pages shared by a fork bomb's copies
// count once in all), plus what its /tmp and /dev/shm hold and the memfd
// files its processes have open; a disk walker (disk_linux.go) measures
// how much its own writable paths grew. Past a limit, or the wall time,
// it kills the sandbox (bwrap's process group and the sandbox's PID 1,
// whose end takes everything inside down) and says why.
//
// Once bwrap has set the sandbox up, everything is read through the
// sandbox's own /proc (/proc/<its pid 1>/root/proc), which lists its
// processes alone: a count that stops at the limit costs the same
// however many processes a bomb made, and nothing of the host's other
// processes (another run's) is read or counted.
type watch struct {
	quit chan struct{}
	done chan *LimitError
}

func startWatch(pid int, paths []string, l Limits) *watch {
	w := &watch{quit: make(chan struct{}), done: make(chan *LimitError, 1)}
	s := &sampler{top: pid, l: l, start: time.Now(), disk: startDisk(paths, l.Written)}
	go func() {
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		defer s.disk.stop()
		for {
			select {
			case <-w.quit:
				w.done <- nil
				return
			case <-t.C:
			}
			if le := s.check(); le != nil {
				s.kill()
				<-w.quit
				w.done <- le
				return
			}
		}
	}()
	return w
}

// stop ends the watchdog and returns the limit it enforced, if any.
func (w *watch) stop() *LimitError {
	close(w.quit)
	return <-w.done
}

// sampler is the watchdog's state between ticks.
type sampler struct {
	top   int // bwrap (or systemd-run, which becomes bwrap)
	init  int // the sandbox's PID 1 seen from the host, once found
	l     Limits
	start time.Time
	tick  int
	disk  *disk
}

// check compares one look at the sandbox with its limits.
func (s *sampler) check() *LimitError {
	if s.l.Wall > 0 && time.Since(s.start) > s.l.Wall {
		return &LimitError{Limit: "wall time", Detail: "ran longer than " + s.l.Wall.String()}
	}
	if s.init == 0 {
		s.init = findInit(s.top)
	}
	base, procs := s.procs()
	tasks := 0
	for _, p := range procs {
		tasks += p.threads
	}
	if tasks > s.l.Procs {
		return &LimitError{Limit: "processes", Detail: fmt.Sprintf("%d processes and threads, more than %d", tasks, s.l.Procs)}
	}
	if w := s.disk.grown(); w > s.l.Written {
		return &LimitError{Limit: "written", Detail: fmt.Sprintf("its writable paths grew by %s while it ran, more than %s", Size(w), Size(s.l.Written))}
	}
	s.tick++
	if s.tick%memEvery != 0 {
		return nil
	}
	held, deleted := s.held(base, procs)
	s.disk.setDeleted(deleted)
	var rss int64
	for _, p := range procs {
		rss += p.rss
	}
	// Pss is never more than Rss: only a sum of Rss past the limit needs
	// the dearer smaps_rollup.
	if rss+held <= s.l.Memory {
		return nil
	}
	var pss int64
	for _, p := range procs {
		pss += readPss(base + "/" + p.name + "/smaps_rollup")
	}
	if mem := pss + held; mem > s.l.Memory {
		return &LimitError{Limit: "memory", Detail: fmt.Sprintf("%s in use (%s in its processes, %s in /tmp, /dev/shm and memfd files), more than %s",
			Size(mem), Size(pss), Size(held), Size(s.l.Memory))}
	}
	return nil
}

// kill ends the sandbox: bwrap's process group, bwrap and the sandbox's
// PID 1 (the kernel then kills every process of its PID namespace).
func (s *sampler) kill() {
	_ = syscall.Kill(-s.top, syscall.SIGKILL)
	_ = syscall.Kill(s.top, syscall.SIGKILL)
	if s.init > 0 {
		_ = syscall.Kill(s.init, syscall.SIGKILL)
	}
}

// proc is one process of the sandbox: its /proc entry's name, threads and
// resident bytes.
type proc struct {
	name    string
	threads int
	rss     int64
}

// procs are the sandbox's processes, read from its own /proc once bwrap
// has set it up (the returned base), from the host's before; reading stops
// once their threads pass the limit.
func (s *sampler) procs() (string, []proc) {
	if s.init > 0 {
		base := "/proc/" + strconv.Itoa(s.init) + "/root/proc"
		if f, err := os.Open(base); err == nil {
			defer f.Close()
			var out []proc
			tasks := 0
			for tasks <= s.l.Procs {
				names, err := f.Readdirnames(256)
				for _, n := range names {
					if _, err := strconv.Atoi(n); err != nil {
						continue
					}
					if p, ok := readStat(base+"/"+n+"/stat", n); ok {
						out = append(out, p)
						tasks += p.threads
					}
				}
				if err != nil {
					break
				}
			}
			return base, out
		}
	}
	return "/proc", hostTree(s.top)
}

// findInit is the sandbox's PID 1 as the host numbers it: the descendant
// of top whose root is not the host's (bwrap has pivoted into the
// sandbox), or 0 while there is none yet.
func findInit(top int) int {
	var hostRoot syscall.Stat_t
	if err := syscall.Stat("/", &hostRoot); err != nil {
		return 0
	}
	for _, p := range hostTree(top) {
		var st syscall.Stat_t
		if syscall.Stat("/proc/"+p.name+"/root/proc/1", &st) != nil {
			continue
		}
		if syscall.Stat("/proc/"+p.name+"/root", &st) == nil && (st.Dev != hostRoot.Dev || st.Ino != hostRoot.Ino) {
			n, _ := strconv.Atoi(p.name)
			return n
		}
	}
	return 0
}

// hostTree is pid and its descendants, from the host's /proc.
func hostTree(pid int) []proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	procs := map[int]proc{}
	parent := map[int]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		pr, ppid, ok := readStatPPID("/proc/"+e.Name()+"/stat", e.Name())
		if ok {
			procs[p], parent[p] = pr, ppid
		}
	}
	children := map[int][]int{}
	for p, pp := range parent {
		children[pp] = append(children[pp], p)
	}
	var out []proc
	stack := []int{pid}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if pr, ok := procs[p]; ok {
			out = append(out, pr)
		}
		stack = append(stack, children[p]...)
	}
	return out
}

// readStat reads one process's threads and resident bytes.
func readStat(path, name string) (proc, bool) {
	p, _, ok := readStatPPID(path, name)
	return p, ok
}

var pageSize = int64(os.Getpagesize())

func readStatPPID(path, name string) (proc, int, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return proc{}, 0, false
	}
	// The fields after the command name, which may hold spaces and ")".
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return proc{}, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 22 {
		return proc{}, 0, false
	}
	ppid, _ := strconv.Atoi(f[1])
	threads, _ := strconv.Atoi(f[17])
	pages, _ := strconv.ParseInt(f[21], 10, 64)
	return proc{name: name, threads: threads, rss: pages * pageSize}, ppid, true
}

// readPss is a process's proportional set size (smaps_rollup's Pss, which
// holds its share of shared and shmem pages too), or 0.
func readPss(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * KiB
		}
	}
	return 0
}

// tmpfsUsed is what the sandbox's /tmp and /dev/shm hold, read through
// its PID 1's root.
func tmpfsUsed(init int) int64 {
	if init == 0 {
		return 0
	}
	var n int64
	for _, m := range []string{"/tmp", "/dev/shm"} {
		var st syscall.Statfs_t
		if syscall.Statfs("/proc/"+strconv.Itoa(init)+"/root"+m, &st) == nil && st.Type == tmpfsMagic {
			n += int64(st.Blocks-st.Bfree) * st.Bsize
		}
	}
	return n
}

const tmpfsMagic = 0x01021994

// held is the memory the sandbox holds outside its processes' own pages —
// its tmpfs mounts and its open memfd files (written but never mapped, a
// memfd is in no process's Pss) — and the disk space of deleted files its
// processes still hold open (in no directory the disk walker reads). A
// memfd or a /dev/shm file that is also mapped counts twice: the bound
// errs on the safe side.
func (s *sampler) held(base string, procs []proc) (held int64, deleted int64) {
	held = tmpfsUsed(s.init)
	seen := map[[2]uint64]bool{}
	for _, p := range procs {
		dir := base + "/" + p.name + "/fd"
		f, err := os.Open(dir)
		if err != nil {
			continue
		}
		names, _ := f.Readdirnames(-1)
		f.Close()
		for _, n := range names {
			target, err := os.Readlink(dir + "/" + n)
			if err != nil {
				continue
			}
			memfd := strings.HasPrefix(target, "/memfd:")
			if !memfd && !strings.HasSuffix(target, " (deleted)") {
				continue
			}
			var st syscall.Stat_t
			if syscall.Stat(dir+"/"+n, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
				continue
			}
			key := [2]uint64{st.Dev, st.Ino}
			if seen[key] {
				continue
			}
			seen[key] = true
			switch {
			case memfd:
				held += st.Blocks * 512
			case s.disk.owns(st.Dev):
				deleted += st.Blocks * 512
			}
		}
	}
	return held, deleted
}
