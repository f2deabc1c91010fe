package ghtest

import (
	"sync"
	"time"
)

// changes wakes the waiters each time the fake has served a request or
// changed its state by itself (a redelivery's resend, logged when the App
// answered it): its state changes only then, or by the test's own calls.
type changes struct {
	mu sync.Mutex
	ch chan struct{}
}

// next is closed after the next request the fake serves.
func (c *changes) next() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

// served wakes every waiter.
func (c *changes) served() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch != nil {
		close(c.ch)
		c.ch = nil
	}
}

// Wait returns true once cond holds, or false when timeout passed first.
// cond is checked now and again each time the fake has answered a
// request or changed its state by itself, never on a timer: a test waits for what the code under test did
// to GitHub (a comment, a label, a pull request) as it happens, however
// slow the machine. cond reads the fake through its snapshot methods.
func (s *Server) Wait(timeout time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		next := s.changes.next() // before cond: a change in between is not missed
		if cond() {
			return true
		}
		select {
		case <-next:
		case <-deadline.C:
			return cond()
		}
	}
}
