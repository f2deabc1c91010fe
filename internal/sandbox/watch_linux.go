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

// watchEvery is how often the watchdog looks at a sandbox.
const watchEvery = 100 * time.Millisecond

// watch is one command's watchdog: every tick it sums the threads and the
// resident memory of every process under bwrap (read from /proc) and the
// free space the working tree's file system lost, and kills the sandbox
// (bwrap's process group; its PID namespace takes everything inside down)
// with the reason when one passes its limit, or when the wall time ends.
// It is what bounds a sandbox as a whole where cgroups are not delegated:
// RLIMIT_NPROC counts every process of the user, and not at all for root.
type watch struct {
	quit chan struct{}
	done chan *LimitError
}

func startWatch(pid int, dir string, l Limits) *watch {
	w := &watch{quit: make(chan struct{}), done: make(chan *LimitError, 1)}
	free0 := freeBytes(dir)
	start := time.Now()
	go func() {
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		for {
			select {
			case <-w.quit:
				w.done <- nil
				return
			case <-t.C:
			}
			if le := check(pid, dir, l, free0, start); le != nil {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
				_ = syscall.Kill(pid, syscall.SIGKILL)
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

// check compares one look at the sandbox with its limits.
func check(pid int, dir string, l Limits, free0 int64, start time.Time) *LimitError {
	if l.Wall > 0 && time.Since(start) > l.Wall {
		return &LimitError{Limit: "wall time", Detail: "ran longer than " + l.Wall.String()}
	}
	tasks, rss := tree(pid)
	if tasks > l.Procs {
		return &LimitError{Limit: "processes", Detail: fmt.Sprintf("%d processes and threads, more than %d", tasks, l.Procs)}
	}
	if rss > l.Memory {
		return &LimitError{Limit: "memory", Detail: fmt.Sprintf("%s resident, more than %s", Size(rss), Size(l.Memory))}
	}
	if free0 > 0 {
		if lost := free0 - freeBytes(dir); lost > l.Written {
			return &LimitError{Limit: "written", Detail: fmt.Sprintf("the disk lost %s while it ran, more than %s", Size(lost), Size(l.Written))}
		}
	}
	return nil
}

// tree sums the threads and resident bytes of pid and its descendants.
func tree(pid int) (tasks int, rss int64) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0
	}
	type proc struct {
		ppid, threads int
		rss           int64
	}
	procs := map[int]proc{}
	page := int64(os.Getpagesize())
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The fields after the command name, which may hold spaces and ")".
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 22 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		threads, _ := strconv.Atoi(f[17])
		pages, _ := strconv.ParseInt(f[21], 10, 64)
		procs[p] = proc{ppid: ppid, threads: threads, rss: pages * page}
	}
	children := map[int][]int{}
	for p, pr := range procs {
		children[pr.ppid] = append(children[pr.ppid], p)
	}
	stack := []int{pid}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if pr, ok := procs[p]; ok {
			tasks += pr.threads
			rss += pr.rss
		}
		stack = append(stack, children[p]...)
	}
	return tasks, rss
}

// freeBytes is the space unprivileged users may still use on path's file
// system, or 0 when it cannot be read.
func freeBytes(path string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0
	}
	return int64(st.Bavail) * int64(st.Bsize)
}
