package giteatest

import (
	"context"
)

// Wait returns true once cond holds, or false when ctx ended first.
// cond is checked now and again each time the fake has answered a
// request, never on a timer: a test waits for what the code under test did
// to Gitea as it happens. cond reads the fake through its snapshot methods.
func (s *Server) Wait(ctx context.Context, cond func() bool) bool {
	for {
		next := s.changes.Next() // before cond: a change in between is not missed
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
