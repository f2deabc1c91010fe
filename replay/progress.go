package replay

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/mattn/go-isatty"
)

// Lines is Progress as one plain line per finished instance (logs, CI).
type Lines struct {
	W io.Writer

	mu          sync.Mutex
	total, done int
}

// Start notes the run's size.
func (p *Lines) Start(total, done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.done = total, done
	fmt.Fprintf(p.W, "replay: %d instances, %d already in the results file\n", total, done)
}

// Stage says nothing: lines are per instance.
func (p *Lines) Stage(string, string) {}

// Done prints the instance's result.
func (p *Lines) Done(r Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	fmt.Fprintf(p.W, "replay: [%d/%d] %s %s (%.0fs)%s %s\n", p.done, p.total, r.ID, r.Status, r.Wall, faultNote(r)+usageNote(r), r.Reason+limitNote(r))
}

// Bar is Progress as a bar redrawn in place on a terminal, with each
// finished instance printed above it.
type Bar struct {
	W io.Writer

	mu                    sync.Mutex
	total, done, resolved int
	running               map[string]string
}

// Start draws the empty bar.
func (p *Bar) Start(total, done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.done, p.running = total, done, map[string]string{}
	p.draw()
}

// Stage notes what an instance is doing.
func (p *Bar) Stage(id, stage string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[id] = stage
	p.draw()
}

// Done prints the result above the bar and redraws it.
func (p *Bar) Done(r Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, r.ID)
	p.done++
	if r.Status == StatusResolved {
		p.resolved++
	}
	fmt.Fprintf(p.W, "\r\033[K%s %s (%.0fs)%s %s\n", r.ID, r.Status, r.Wall, faultNote(r)+usageNote(r), r.Reason+limitNote(r))
	p.draw()
}

func (p *Bar) draw() {
	const width = 30
	fill := 0
	if p.total > 0 {
		fill = width * p.done / p.total
	}
	var now []string
	for id, st := range p.running {
		now = append(now, shortID(id)+" "+st)
	}
	fmt.Fprintf(p.W, "\r\033[K[%s%s] %d/%d resolved %d  %s", strings.Repeat("#", fill), strings.Repeat(".", width-fill),
		p.done, p.total, p.resolved, strings.Join(now, ", "))
}

func shortID(id string) string {
	if i := strings.LastIndexAny(id, "_-"); i > 0 && len(id)-i > 9 {
		return id[:i+9]
	}
	return id
}

// ProgressFor is a bar on a terminal, plain lines otherwise (logs, CI).
func ProgressFor(w io.Writer) Progress {
	if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		return &Bar{W: w}
	}
	return &Lines{W: w}
}

// faultNote is " [3 faults: +2 calls, +5k tokens of 14 calls, 40k tokens]"
// for an oracle run with --faults, else "".
func faultNote(r Result) string {
	f := r.Faults
	if f == nil {
		return ""
	}
	return fmt.Sprintf(" [%d faults: +%d calls, +%s tokens of %d calls, %s tokens]", f.Injected(), f.ExtraCalls,
		kilo(f.ExtraTokens), f.Calls, kilo(f.Tokens))
}

// limitNote is "; limits: a: why; b: why" for a result with stated
// limits, else "".
func limitNote(r Result) string {
	if len(r.Limits) == 0 {
		return ""
	}
	return "; limits: " + strings.Join(r.Limits, "; ")
}

// usageNote is " [prompt 74.0k, cached 60.2k, uncached 13.8k, completion
// 3.1k tokens]" for a run that used a model, else "".
func usageNote(r Result) string {
	u := r.Usage
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		return ""
	}
	cost := ""
	if r.Cost > 0 {
		cost = fmt.Sprintf(", $%.4f", r.Cost)
	}
	return fmt.Sprintf(" [prompt %s, cached %s, uncached %s, completion %s tokens%s]", kilo(u.PromptTokens),
		kilo(u.CachedTokens), kilo(u.PromptTokens-u.CachedTokens), kilo(u.CompletionTokens), cost)
}

// kilo writes a token count as 950, 12.3k or 4.5M.
func kilo(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
