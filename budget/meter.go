package budget

import (
	"context"
	"sync"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/llm"
)

// Scope is whom a stage's model calls spend for, and the limits they
// spend under.
type Scope struct {
	InstallationID int64
	Owner, Repo    string
	Issue          int
	RunID          int64 // 0 outside a run (summary refreshes): no run limit
	Stage          string
	Limits         config.SpendLimits
	// Roles are the stage limits per role (the repository's role budgets
	// under the server's stage ceiling); a role left out has none.
	Roles map[llm.Role]config.Limit
}

// Meter is one stage job's spending state. It is safe for concurrent use.
type Meter struct {
	sc    Scope
	mu    sync.Mutex
	stage map[llm.Role]spent
	over  *Exceeded
	fault error
	notes []string
	noted map[string]bool
}

type spent struct {
	tokens int64
	cost   float64
}

// NewMeter starts the spending state of a stage job in sc.
func NewMeter(sc Scope) *Meter {
	return &Meter{sc: sc, stage: map[llm.Role]spent{}, noted: map[string]bool{}}
}

// Scope is the meter's scope.
func (m *Meter) Scope() Scope { return m.sc }

// Exceeded is the limit that stopped the stage, or nil.
func (m *Meter) Exceeded() *Exceeded {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.over
}

// Fault is the first ledger failure that refused a call, or nil: the
// calls were not refused by a limit but because the limits could not be
// checked, so the stage should be tried again rather than end.
func (m *Meter) Fault() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fault
}

func (m *Meter) failed(err error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fault == nil {
		m.fault = err
	}
	return err
}

// Notes are the one-line notes for the progress comment (a window past
// 80%, a model without a price, usage counted locally), in order.
func (m *Meter) Notes() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.notes...)
}

// Note adds a note once (the workflow adds the limits the file asked
// above the server's ceiling).
func (m *Meter) Note(key, text string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.noted[key] {
		m.noted[key] = true
		m.notes = append(m.notes, text)
	}
}

// stop records the first limit the stage hit.
func (m *Meter) stop(e *Exceeded) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.over == nil {
		m.over = e
	}
}

func (m *Meter) stageSpent(r llm.Role) spent {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stage[r]
}

func (m *Meter) addStage(r llm.Role, s llm.Spent) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.stage[r]
	st.tokens += int64(s.Usage.Total())
	st.cost += s.Cost
	m.stage[r] = st
}

type meterKey struct{}

// WithMeter returns ctx carrying m: every model call under ctx spends in
// m's scope.
func WithMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// MeterFrom returns the Meter ctx carries, or nil.
func MeterFrom(ctx context.Context) *Meter {
	m, _ := ctx.Value(meterKey{}).(*Meter)
	return m
}
