package fakeapi

import "sync"

// Bell wakes the waiters each time it rings: a fake rings it after every
// request it served (and after a change it made by itself), so a test's
// Wait looks again then, never on a timer. The zero value is ready.
type Bell struct {
	mu sync.Mutex
	ch chan struct{}
}

// Next is closed at the next ring. Take it before looking at the state the
// ring guards, so a change in between is not missed.
func (b *Bell) Next() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	return b.ch
}

// Ring wakes every waiter.
func (b *Bell) Ring() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch != nil {
		close(b.ch)
		b.ch = nil
	}
}
