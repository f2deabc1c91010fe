package giteatest

import (
	"context"
	"sync"
)

// changes wakes the waiters each time the fake has served a request: its
// state changes only then, or by the test's own calls.
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

func (c *changes) served() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch != nil {
		close(c.ch)
		c.ch = nil
	}
}

// Wait returns true once cond holds, or false when ctx ended first.
// cond is checked now and again each time the fake has answered a
// request, never on a timer: a test waits for what the code under test did
// to Gitea as it happens. cond reads the fake through its snapshot methods.
func (s *Server) Wait(ctx context.Context, cond func() bool) bool {
	for {
		next := s.changes.next() // before cond: a change in between is not missed
		if cond() {
			return true
		}
		select {
		case <-next:
		case <-ctx.Done():
			return cond()
		}
	}
}
