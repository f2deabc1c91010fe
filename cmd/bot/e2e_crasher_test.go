package main

import (
	"fmt"
	"net/http"
	"syscall"
	"time"
)

// The crash sweep's process keeper (the sweep itself is in e2e_writes_test.go).

// crasher keeps the server process running: when it died (the write hook
// killed it), it is started again without the hook's settings.
type crasher struct {
	e         *e2e
	plain     []string
	exited    chan struct{}
	restarts  int
	restarted time.Time
	recovered time.Duration
	// kills, when set, are the random-kill sweep's gaps: the process is
	// killed (SIGKILL) kills[i] after it became ready for the i-th time,
	// while the run is waited on.
	kills  []time.Duration
	t0     time.Time // the run's start
	ready  time.Time // the last time the process became ready
	killed int
}

// maybeKill kills the process when the next of c.kills is due.
func (c *crasher) maybeKill() {
	if c.killed >= len(c.kills) || time.Since(c.ready) < c.kills[c.killed] || c.e.child == nil {
		return
	}
	c.killed++
	_ = c.e.child.Process.Kill()
	<-c.exited
}

// start launches the process and waits until it is ready, or, when it
// died on the way (killed during its start-up writes), starts it again.
func (c *crasher) start() {
	e := c.e
	e.t.Helper()
	for {
		e.child = e.launch("process start", e.addr, e.env)
		c.watch()
		deadline := time.Now().Add(30 * time.Second)
		for !ready(e.addr) {
			select {
			case <-c.exited:
				c.died()
			case <-time.After(20 * time.Millisecond):
			}
			if e.child == nil {
				break
			}
			if time.Now().After(deadline) {
				e.t.Fatal("the server did not become ready")
			}
		}
		if e.child != nil {
			c.ready = time.Now()
			return
		}
	}
}

// died records a process that ended: later starts run without the hook.
func (c *crasher) died() {
	c.e.child = nil
	c.e.env = c.plain
	c.restarts++
	c.restarted = time.Now()
}

func ready(addr string) bool {
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func (c *crasher) watch() {
	ch := make(chan struct{})
	child := c.e.child
	go func() { _ = child.Wait(); close(ch) }()
	c.exited = ch
}

// stop ends the process gracefully (SIGTERM) and reports true when it
// exited cleanly. A kill during the shutdown's own writes is a kill like
// any other: stop starts the process again and reports false (the caller
// lets the work settle and stops again).
func (c *crasher) stop() bool {
	c.e.t.Helper()
	c.alive()
	child := c.e.child
	_ = child.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(15 * time.Second):
		_ = child.Process.Kill()
		c.e.t.Fatal("no exit 15s after SIGTERM")
	}
	if child.ProcessState.Success() {
		c.e.child = nil
		return true
	}
	c.e.t.Logf("the process died while stopping (%s); starting it again", child.ProcessState)
	c.alive()
	return false
}

// alive restarts the process if it died and reports whether it had.
func (c *crasher) alive() bool {
	select {
	case <-c.exited:
	default:
		return false
	}
	c.died()
	c.start()
	return true
}

// wait polls cond, restarting the process whenever it died.
func (c *crasher) wait(what string, cond func() bool) {
	c.e.t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for !cond() {
		c.maybeKill()
		c.alive()
		if time.Now().After(deadline) {
			c.e.t.Fatalf("%s: not within 120s (progress: %s)", what, c.e.progress())
		}
		time.Sleep(25 * time.Millisecond)
	}
	if !c.restarted.IsZero() && c.recovered == 0 {
		c.recovered = time.Since(c.restarted)
	}
}

// deliver sends a delivery until the bot answers 2xx, restarting the
// process in between: GitHub redelivers what was not answered (same id).
func (c *crasher) deliver(event, example string, set func(p map[string]any)) {
	c.e.t.Helper()
	c.e.seq++
	id := fmt.Sprintf("crash-%s-%d", event, c.e.seq)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.DefaultClient.Do(c.e.deliveryRequest(event, example, id, e2eSecret, set))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				return
			}
		}
		if time.Now().After(deadline) {
			c.e.t.Fatalf("delivery %s never accepted (last: %v)", id, err)
		}
		c.maybeKill()
		if !c.alive() {
			time.Sleep(100 * time.Millisecond)
		}
	}
}
