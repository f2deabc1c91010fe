package llm

import (
	"context"
	"sort"
	"sync"
)

// Ledger records token usage and estimated cost per run and per role. The
// zero value is ready; it is safe for concurrent use.
type Ledger struct {
	mu   sync.Mutex
	runs map[string]map[Role]*Line
}

// Line is the usage of one role in one run (or a total).
type Line struct {
	Role  Role    `json:"role,omitempty"`
	Calls int     `json:"calls"`
	Usage Usage   `json:"usage"`
	Cost  float64 `json:"cost"`
}

// Record adds one call's usage and cost under run and role.
func (l *Ledger) Record(run string, role Role, u Usage, cost float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs == nil {
		l.runs = map[string]map[Role]*Line{}
	}
	roles := l.runs[run]
	if roles == nil {
		roles = map[Role]*Line{}
		l.runs[run] = roles
	}
	ln := roles[role]
	if ln == nil {
		ln = &Line{Role: role}
		roles[role] = ln
	}
	ln.Calls++
	ln.Usage = ln.Usage.Add(u)
	ln.Cost += cost
}

// Run returns the lines of run, sorted by role, and their total.
func (l *Ledger) Run(run string) (lines []Line, total Line) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ln := range l.runs[run] {
		lines = append(lines, *ln)
		total.Calls += ln.Calls
		total.Usage = total.Usage.Add(ln.Usage)
		total.Cost += ln.Cost
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].Role < lines[j].Role })
	return lines, total
}

// Forget drops run's lines once they were persisted.
func (l *Ledger) Forget(run string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.runs, run)
}

// Track returns a Model that records every successful call of m under run
// and the request's role. Cost is the Response's Cost (Client fills it).
func (l *Ledger) Track(run string, m Model) Model {
	return &tracked{l: l, run: run, m: m}
}

type tracked struct {
	l   *Ledger
	run string
	m   Model
}

func (t *tracked) Chat(ctx context.Context, req Request) (*Response, error) {
	resp, err := t.m.Chat(ctx, req)
	if err == nil {
		t.l.Record(t.run, req.Role, resp.Usage, resp.Cost)
	}
	return resp, err
}

// Protocol forwards to the wrapped model when it chooses protocols.
func (t *tracked) Protocol(role Role) Protocol {
	if pc, ok := t.m.(ProtocolChooser); ok {
		return pc.Protocol(role)
	}
	return ProtocolTools
}
