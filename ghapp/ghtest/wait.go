package ghtest

import (
	"time"
)

// Wait returns true once cond holds, or false when timeout passed first.
// cond is checked now and again each time the fake has answered a
// request or changed its state by itself, never on a timer: a test waits for what the code under test did
// to GitHub (a comment, a label, a pull request) as it happens, however
// slow the machine. cond reads the fake through its snapshot methods.
func (s *Server) Wait(timeout time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		next := s.changes.Next() // before cond: a change in between is not missed
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
