package webhook

import (
	"context"
	"sync"
)

// MemoryDeliveries is an in-process Deliveries that remembers the last Size
// keys (the handler records two per delivery: its id and its body key). It suits one process without a database (tests, `bot serve`
// before store is wired); store implements Deliveries durably.
type MemoryDeliveries struct {
	Size int // ids remembered; 10000 when 0

	mu    sync.Mutex // guards seen and order
	seen  map[string]bool
	order []string
}

// RecordDelivery implements Deliveries.
func (m *MemoryDeliveries) RecordDelivery(_ context.Context, id, _ string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen == nil {
		m.seen = map[string]bool{}
	}
	if m.seen[id] {
		return false, nil
	}
	m.seen[id] = true
	m.order = append(m.order, id)
	size := m.Size
	if size <= 0 {
		size = 10000
	}
	for len(m.order) > size {
		delete(m.seen, m.order[0])
		m.order = m.order[1:]
	}
	return true, nil
}

// ForgetDelivery implements Forgetter.
func (m *MemoryDeliveries) ForgetDelivery(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.seen, id)
	return nil
}
